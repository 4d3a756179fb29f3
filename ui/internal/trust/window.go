package trust

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/ui/internal/files"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// Manager is the trusted-keys manager: it lists the entries of the
// analyst's allowed_signers file with their fingerprints and lets the
// analyst add and remove curator keys.
type Manager struct {
	store    Store
	win      fyne.Window
	onChange func() // called after every successful change (may be nil)

	entries []keys.AllowedSigner
	list    *widget.List
	status  *widget.Label
	Content fyne.CanvasObject // the manager, to put into a window
}

// NewManager returns the manager of store in win; onChange (may be nil)
// is called after every successful change.
func NewManager(store Store, win fyne.Window, onChange func()) *Manager {
	m := &Manager{store: store, win: win, onChange: onChange}
	m.status = widget.NewLabel("")
	m.status.Wrapping = fyne.TextWrapWord
	m.list = widget.NewList(
		func() int { return len(m.entries) },
		func() fyne.CanvasObject {
			who := widget.NewLabelWithStyle("principal", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			fp := widget.NewLabelWithStyle("SHA256:", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			fp.Selectable = true
			info := widget.NewLabel("")
			rm := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), nil)
			return container.NewBorder(nil, nil, nil, container.NewCenter(rm), container.NewVBox(container.NewHBox(who, info), fp))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(m.entries) {
				return
			}
			e := m.entries[id]
			b := o.(*fyne.Container)
			text := b.Objects[0].(*fyne.Container)
			top := text.Objects[0].(*fyne.Container)
			top.Objects[0].(*widget.Label).SetText(e.Principals)
			top.Objects[1].(*widget.Label).SetText(trustEntryInfo(e))
			text.Objects[1].(*widget.Label).SetText(e.Fingerprint)
			rm := b.Objects[1].(*fyne.Container).Objects[0].(*widget.Button)
			rm.OnTapped = func() { m.confirmRemove(e) }
		},
	)
	path := widget.NewLabel("Trusted keys are kept in " + store.Path + " (an OpenSSH allowed_signers file; `ssh-keygen -Y verify -f` accepts it too).")
	path.Wrapping = fyne.TextWrapWord
	add := widget.NewButtonWithIcon("Add Key…", theme.ContentAddIcon(), m.showAdd)
	imp := widget.NewButtonWithIcon("Import from File…", theme.FileIcon(), m.showImport)
	m.Content = container.NewBorder(
		container.NewVBox(widget.NewLabelWithStyle("Curator keys you trust", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), path),
		container.NewVBox(m.status, container.NewHBox(add, imp, layout.NewSpacer())),
		nil, nil, m.list)
	m.reload()
	return m
}

// trustEntryInfo summarises an entry's restrictions.
func trustEntryInfo(e keys.AllowedSigner) string {
	var parts []string
	parts = append(parts, e.Key.Type())
	if e.Namespaces != nil {
		parts = append(parts, "namespaces "+strings.Join(e.Namespaces, ","))
	} else {
		parts = append(parts, "all namespaces")
	}
	if e.CertAuthority {
		parts = append(parts, "cert-authority")
	}
	if !e.ValidAfter.IsZero() {
		parts = append(parts, "valid after "+e.ValidAfter.Format("2006-01-02"))
	}
	if !e.ValidBefore.IsZero() {
		parts = append(parts, "valid before "+e.ValidBefore.Format("2006-01-02"))
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

// reload re-reads the file and refreshes the list.
func (m *Manager) reload() {
	entries, err := m.store.Entries()
	if err != nil {
		m.entries = nil
		m.status.SetText("Cannot read the trusted-keys file: " + err.Error())
	} else {
		m.entries = entries
		switch len(entries) {
		case 0:
			m.status.SetText("No trusted keys yet. Add the public key or allowed_signers line your curator gave you.")
		case 1:
			m.status.SetText("1 trusted key.")
		default:
			m.status.SetText(fmt.Sprintf("%d trusted keys.", len(entries)))
		}
	}
	m.list.Refresh()
}

func (m *Manager) changed() {
	m.reload()
	if m.onChange != nil {
		m.onChange()
	}
}

func (m *Manager) confirmRemove(e keys.AllowedSigner) {
	dialog.ShowConfirm("Remove trusted key?",
		fmt.Sprintf("Stop trusting %s?\n%s\n\nFiles signed with this key will show as untrusted.", e.Principals, e.Fingerprint),
		func(ok bool) {
			if ok {
				if err := m.remove(e.Fingerprint); err != nil {
					dialog.ShowError(err, m.win)
				}
			}
		}, m.win)
}

// remove stops trusting the key with the fingerprint.
func (m *Manager) remove(fingerprint string) error {
	if _, err := m.store.Remove(fingerprint); err != nil {
		return err
	}
	m.changed()
	return nil
}

// addText trusts the key in keyText (a public key or allowed_signers line)
// under principal ("" takes the principal suggested by keyText).
func (m *Manager) addText(principal, keyText string) error {
	key, suggested, err := keys.ParseKeyText(keyText)
	if err != nil {
		return err
	}
	if strings.TrimSpace(principal) == "" {
		principal = suggested
	}
	if strings.TrimSpace(principal) == "" {
		return fmt.Errorf("name the curator (a name or e-mail address without spaces)")
	}
	if err := m.store.Add(principal, key); err != nil {
		return err
	}
	m.changed()
	return nil
}

func (m *Manager) showAdd() { m.showAddWith("") }

func (m *Manager) showAddWith(text string) {
	keyEntry := widgets.NewTabEntry()
	keyEntry.SetPlaceHolder("ssh-ed25519 AAAA…   or   alice@example.org namespaces=\"bernstein-synopsis\" ssh-ed25519 AAAA…")
	keyEntry.Wrapping = fyne.TextWrapBreak
	keyEntry.SetMinRowsVisible(3)
	who := widget.NewEntry()
	who.SetPlaceHolder("curator@example.org")
	fp := widget.NewLabel("")
	fp.TextStyle = fyne.TextStyle{Monospace: true}
	keyEntry.OnChanged = func(s string) {
		key, suggested, err := keys.ParseKeyText(s)
		if err != nil {
			fp.SetText(err.Error())
			return
		}
		fp.SetText(fingerprintOf(key))
		if who.Text == "" && suggested != "" {
			who.SetText(suggested)
		}
	}
	keyEntry.SetText(text)
	items := []*widget.FormItem{
		{Text: "Public key", Widget: keyEntry, HintText: "as the curator gave it to you"},
		widget.NewFormItem("Fingerprint", fp),
		{Text: "Curator", Widget: who, HintText: "a name or e-mail address, without spaces"},
	}
	d := dialog.NewForm("Add a trusted curator key", "Trust", "Cancel", items, func(ok bool) {
		if ok {
			if err := m.addText(who.Text, keyEntry.Text); err != nil {
				dialog.ShowError(err, m.win)
			}
		}
	}, m.win)
	d.Resize(fyne.NewSize(720, 360))
	d.Show()
}

// showImport reads a .pub or allowed_signers file into the add dialog.
func (m *Manager) showImport() {
	files.ShowOpenFile(m.win, nil, func(path string) {
		data, err := readSmallFile(path, 64<<10)
		if err != nil {
			dialog.ShowError(err, m.win)
			return
		}
		m.showAddWith(string(data))
	})
}

// readSmallFile reads a regular file of at most limit bytes (a FIFO or
// device is refused rather than waited on).
func readSmallFile(path string, limit int64) ([]byte, error) {
	return fileio.ReadRegular(path, limit)
}
