/*
 * Test tooling only, never shipped: a bcryptprimitives.dll for Wine 8, which
 * lacks ProcessPrng. The Go >= 1.24 runtime loads ProcessPrng from
 * system32\bcryptprimitives.dll at start ("fatal error:
 * bcryptprimitives.dll not found"). This shim implements it on top of
 * RtlGenRandom (advapi32 SystemFunction036), Wine's CSPRNG.
 * scripts/dist-test.sh builds it with x86_64-w64-mingw32-gcc and copies it into
 * its own temporary WINEPREFIX's system32.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	while (length > 0) {
		ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
		if (!SystemFunction036(data, chunk))
			return FALSE;
		data += chunk;
		length -= chunk;
	}
	return TRUE;
}
