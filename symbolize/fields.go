package symbolize

import "debug/dwarf"

// FieldOffset returns the offset of the member field in the struct type
// named structName (as DWARF names it: "testing.B"), from the DWARF of the
// object or of its debug file; false when neither says.
func (o *Object) FieldOffset(structName, field string) (int64, bool) {
	for _, p := range []string{o.Path, o.DebugFile()} {
		if p == "" {
			continue
		}
		if off, ok := fieldOffset(p, structName, field); ok {
			return off, true
		}
	}
	return 0, false
}

// fieldOffset is FieldOffset in the DWARF of the file at path.
func fieldOffset(path, structName, field string) (off int64, ok bool) {
	f, size, err := openELF(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	defer func() {
		if recover() != nil {
			off, ok = 0, false // DWARF debug/dwarf cannot read
		}
	}()
	if f.Section(".debug_info") == nil && f.Section(".zdebug_info") == nil || checkDebugSizes(f, size) != nil {
		return 0, false
	}
	d, _, err := loadDWARF(f)
	if err != nil {
		return 0, false
	}
	return structField(d, structName, field)
}

// structField finds the struct type named structName among the top-level
// DIEs of d's units, and the offset of its member field.
func structField(d *dwarf.Data, structName, field string) (int64, bool) {
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			return 0, false
		}
		if e.Tag != dwarf.TagStructType || e.Val(dwarf.AttrName) != structName {
			if e.Tag != dwarf.TagCompileUnit {
				r.SkipChildren()
			}
			continue
		}
		for e.Children {
			m, err := r.Next()
			if err != nil || m == nil || m.Tag == 0 {
				return 0, false
			}
			if m.Tag == dwarf.TagMember && m.Val(dwarf.AttrName) == field {
				v, ok := m.Val(dwarf.AttrDataMemberLoc).(int64)
				return v, ok && v >= 0
			}
		}
		return 0, false
	}
}
