#!/usr/bin/env python3
"""Adds the file associations to the unpacked `fyne package` tree (used by scripts/dist.sh).

usage: dist_linux_mime.py TREE APP_ID

TREE is the tarball's top directory (Makefile, usr/...). This script
- writes usr/[local/]share/mime/packages/APP_ID.xml, the shared-mime-info
  types application/x-bernstein-synopsis (*.synopsis) and
  application/x-bernstein-project (*.bernstein);
- makes the desktop entry's Exec take one file (%f): `bernstein FILE.synopsis`
  opens the viewer, exactly as `bernstein view FILE.synopsis`, and
  `bernstein FILE.csv` the curator (cmd_open_file.go);
- repairs fyne's Makefile (v1.7.4 quotes "bernstein %F" as the binary's
  name when MIME types are declared) and makes every install/uninstall
  target install or remove the MIME XML and refresh the MIME and desktop
  databases (a missing update-* tool is not an error).
"""
import pathlib
import re
import sys

MIME_XML = """<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="application/x-bernstein-synopsis">
    <comment>Bernstein Release synopsis (differentially private function)</comment>
    <generic-icon name="text-x-generic"/>
    <glob pattern="*.synopsis"/>
  </mime-type>
  <mime-type type="application/x-bernstein-project">
    <comment>Bernstein Release project</comment>
    <generic-icon name="text-x-generic"/>
    <glob pattern="*.bernstein"/>
  </mime-type>
</mime-info>
"""


def main(tree: str, app_id: str) -> None:
    root = pathlib.Path(tree)
    desktop = next(root.glob("usr/**/share/applications/%s.desktop" % app_id))
    share = desktop.parent.parent  # usr/local/share or usr/share
    rel_share = share.relative_to(root).as_posix()

    text = desktop.read_text()
    text, n = re.subn(r"^Exec=bernstein %F$", "Exec=bernstein %f", text, flags=re.M)
    if n != 1:
        sys.exit("dist_linux_mime.py: %s: no line 'Exec=bernstein %%F'" % desktop)
    desktop.write_text(text)

    xml = share / "mime" / "packages" / (app_id + ".xml")
    xml.parent.mkdir(parents=True, exist_ok=True)
    xml.write_text(MIME_XML)

    mk = root / "Makefile"
    src = mk.read_text()
    src, n = re.subn(r'^Exec := "bernstein %F"$', 'Exec := "bernstein"', src, flags=re.M)
    if n != 1:
        sys.exit("dist_linux_mime.py: %s: no line 'Exec := \"bernstein %%F\"'" % mk)
    system = "$(DESTDIR)$(PREFIX)/share"
    user = "$(DESTDIR)$(HOME)/.local/share"
    add = {
        "install": [
            "install -Dm00644 %s/mime/packages/$(AppID).xml %s/mime/packages/$(AppID).xml" % (rel_share, system),
            "-update-mime-database %s/mime" % system,
            "-update-desktop-database %s/applications" % system,
        ],
        "uninstall": [
            "-rm %s/mime/packages/$(AppID).xml" % system,
            "-update-mime-database %s/mime" % system,
            "-update-desktop-database %s/applications" % system,
        ],
        "user-install": [
            "install -Dm00644 %s/mime/packages/$(AppID).xml %s/mime/packages/$(AppID).xml" % (rel_share, user),
            "-update-mime-database %s/mime" % user,
            "-update-desktop-database %s/applications" % user,
        ],
        "user-uninstall": [
            "-rm %s/mime/packages/$(AppID).xml" % user,
            "-update-mime-database %s/mime" % user,
            "-update-desktop-database %s/applications" % user,
        ],
    }
    out, target = [], None
    for line in src.splitlines():
        m = re.match(r"^([a-z-]+):\s*$", line)
        if m or (target and not line.startswith("\t")):
            if target in add:  # end of the previous target's recipe
                out.extend("\t" + cmd for cmd in add.pop(target))
            target = m.group(1) if m else None
        out.append(line)
    if target in add:
        out.extend("\t" + cmd for cmd in add.pop(target))
    if add:
        sys.exit("dist_linux_mime.py: %s: targets not found: %s" % (mk, ", ".join(add)))
    mk.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
