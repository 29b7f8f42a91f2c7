package decode

import (
	"bytes"
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// The fast path of the RawObject codecs. A RawObject models apiVersion,
// kind and metadata only, yet json-iterator, asked to decode a whole object
// into one, tokenises every byte of spec, status and managedFields to step
// over them — allocating a string for each object key on the way (its
// strict Skip reads keys with ReadString). For a pod that is most of the
// decoding time and hundreds of allocations. Here kcm's byte scanner
// (kube/internal/jsonx) finds the three members instead, and json-iterator
// decodes only the metadata, without managedFields.
//
// Validation of what is stepped over is shallow (strings end, brackets
// balance): the bytes come from kube-apiserver, whose encoder writes valid
// JSON, and list and watch framing have already checked each object.

// decodeRaw parses data into a RawObject that keeps data as its raw JSON,
// or, when strip is set, a copy of data without metadata.managedFields.
func decodeRaw(data []byte, strip bool) (*api.RawObject, error) {
	metaMembers := make([]jsonx.Member, 0, 12)
	top, end, err := objectMembersInto(make([]jsonx.Member, 0, 6), data, 0, &metaMembers)
	if err != nil {
		return nil, fmt.Errorf("%w: object: %w", api.ErrDecode, err)
	}
	if rest := jsonx.SkipWS(data, end); rest != len(data) {
		return nil, fmt.Errorf("%w: object: unexpected byte at %d after the object", api.ErrDecode, rest)
	}
	o := &api.RawObject{}
	meta := -1 // index in top of the "metadata" member
	for j, m := range top {
		switch string(data[m.KeyStart:m.KeyEnd]) {
		case "apiVersion":
			err = decodeRawString(data[m.ValStart:m.End], &o.APIVersion)
		case "kind":
			err = decodeRawString(data[m.ValStart:m.End], &o.Kind)
		case "metadata":
			if meta >= 0 {
				// A repeated key: json-iterator merges the two into one
				// ObjectMeta; let it, rather than copy its rules.
				return decodeRawSlow(data, strip)
			}
			meta = j
		}
		if err != nil {
			return nil, err
		}
	}
	if meta < 0 {
		o.SetRaw(data)
		return o, nil
	}
	m := top[meta]
	// An object that may have a controller is stripped into a scratch
	// buffer, which the family form does not keep; any other gets its
	// stripped copy allocated to size, as it keeps it.
	var buf *[]byte
	if strip && hasMember(data, metaMembers, "ownerReferences") {
		buf = getScratch()
		defer putScratch(buf)
	}
	metaJSON, raw, err := cutManagedFields(data, m.ValStart, m.End, metaMembers, strip, scratchOf(buf))
	if err != nil {
		return nil, err
	}
	if err := jsonx.Unmarshal(metaJSON, &o.ObjectMeta); err != nil {
		return nil, fmt.Errorf("%w: object: %v", api.ErrDecode, err)
	}
	shareMaps(data, metaMembers, &o.ObjectMeta)
	internMeta(&o.ObjectMeta)
	inScratch := buf != nil && len(raw) > 0 && &raw[0] != &data[0]
	if inScratch {
		*buf = raw[:0] // keep what it grew to
	}
	switch {
	case !strip:
		o.SetRaw(raw)
	case setFamilySource(&o.ObjectMeta, raw, topShape(data, top)):
		// Written against its family's base: raw is not kept.
	case inScratch:
		o.SetRaw(bytes.Clone(raw)) // the scratch buffer goes back to the pool
	default:
		o.SetRaw(raw) // a copy made to size, or data itself when nothing was cut
	}
	return o, nil
}

// decodeRawSlow is the plain path: cut managedFields, then decode the whole
// object with json-iterator.
func decodeRawSlow(data []byte, strip bool) (*api.RawObject, error) {
	if strip {
		cut, err := StripManagedFields(data)
		if err != nil {
			return nil, err
		}
		data = cut
	}
	return api.DecodeRawObject(data)
}

// cutManagedFields returns the metadata value data[from:to], whose
// members are listed in members, without its managedFields member (for
// decoding), and the object's raw JSON: data itself, or with strip a copy
// of data without managedFields.
//
// With strip, the copy is appended to buf[:0] when buf is not nil.
func cutManagedFields(data []byte, from, to int, members []jsonx.Member, strip bool, buf []byte) (metaJSON, raw []byte, err error) {
	if data[from] != '{' {
		return data[from:to], data, nil // null, or a type error json-iterator reports
	}
	for j, m := range members {
		if string(data[m.KeyStart:m.KeyEnd]) != "managedFields" {
			continue
		}
		cutFrom, cutTo := m.Start, m.End
		switch {
		case j > 0:
			cutFrom = members[j-1].End // with the comma before it
		case len(members) > 1:
			cutTo = members[1].Start // with the comma after it
		}
		if cutFrom <= from || cutTo >= to {
			// The shallow scans of the object and of its metadata disagree
			// on where metadata ends: not JSON.
			return nil, nil, fmt.Errorf("%w: metadata: managedFields outside the metadata object", api.ErrDecode)
		}
		if strip {
			if buf == nil {
				buf = make([]byte, 0, len(data)-(cutTo-cutFrom))
			}
			raw = append(append(buf[:0], data[:cutFrom]...), data[cutTo:]...)
			return raw[from : to-(cutTo-cutFrom)], raw, nil
		}
		metaJSON = make([]byte, 0, (to-from)-(cutTo-cutFrom))
		metaJSON = append(append(metaJSON, data[from:cutFrom]...), data[cutTo:to]...)
		return metaJSON, data, nil
	}
	return data[from:to], data, nil
}

// decodeRawString sets *dst from a JSON string value; null leaves it empty.
func decodeRawString(v []byte, dst *string) error {
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v[1:len(v)-1], '\\') < 0 && bytes.IndexByte(v[1:len(v)-1], '"') < 0 {
		*dst = string(v[1 : len(v)-1])
		return nil
	}
	if err := jsonx.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("%w: object: %v", api.ErrDecode, err)
	}
	return nil
}

// objectMembersInto appends the members of the object at d[i] to out. When
// meta is not nil and the object has a "metadata" member holding an
// object, that object's members are listed into *meta on the way, so its
// bytes are scanned once.
func objectMembersInto(out []jsonx.Member, d []byte, i int, meta *[]jsonx.Member) ([]jsonx.Member, int, error) {
	i = jsonx.SkipWS(d, i)
	if i >= len(d) || d[i] != '{' {
		return nil, 0, fmt.Errorf("expected an object")
	}
	for i++; ; {
		i = jsonx.SkipWS(d, i)
		switch {
		case i >= len(d):
			return nil, 0, jsonx.ErrIncomplete
		case d[i] == '}':
			return out, i + 1, nil
		case len(out) > 0:
			if d[i] != ',' {
				return nil, 0, fmt.Errorf("expected ',' or '}' at byte %d", i)
			}
			i = jsonx.SkipWS(d, i+1)
		}
		if i >= len(d) || d[i] != '"' {
			return nil, 0, fmt.Errorf("expected a key at byte %d", i)
		}
		m := jsonx.Member{Start: i, KeyStart: i + 1}
		ke, err := jsonx.SkipStringFast(d, i)
		if err != nil {
			return nil, 0, err
		}
		m.KeyEnd = ke - 1
		i = jsonx.SkipWS(d, ke)
		if i >= len(d) || d[i] != ':' {
			return nil, 0, fmt.Errorf("expected ':' at byte %d", i)
		}
		m.ValStart = jsonx.SkipWS(d, i+1)
		if m.ValStart >= len(d) {
			return nil, 0, jsonx.ErrIncomplete
		}
		if meta != nil && d[m.ValStart] == '{' && string(d[m.KeyStart:m.KeyEnd]) == "metadata" {
			*meta, m.End, err = objectMembersInto((*meta)[:0], d, m.ValStart, nil)
		} else {
			m.End, err = jsonx.SkipValueFast(d, m.ValStart)
		}
		if err != nil {
			return nil, 0, err
		}
		if m.End == m.ValStart {
			return nil, 0, fmt.Errorf("expected a value at byte %d", m.ValStart)
		}
		if c := d[m.ValStart]; c != '{' && c != '[' && c != '"' {
			if k := bytes.IndexAny(d[m.ValStart:m.End], `{["`); k >= 0 {
				// A scalar ends at a delimiter, so 0{ would pass for one;
				// but a stream's scanner opens a container or a string at
				// those bytes, and a codec that checks whole objects
				// (ChecksWholeObject) must end an object where it does.
				return nil, 0, fmt.Errorf("unexpected %q in a value at byte %d", d[m.ValStart+k], m.ValStart+k)
			}
		}
		out = append(out, m)
		i = m.End
	}
}

// hasMember reports whether members, listed in data, include key.
func hasMember(data []byte, members []jsonx.Member, key string) bool {
	for _, m := range members {
		if string(data[m.KeyStart:m.KeyEnd]) == key {
			return true
		}
	}
	return false
}

// shareMaps swaps m's labels and annotations for equal maps decoded from
// the same bytes before (see shareMap). members are the metadata's
// members in data; a key seen twice was merged by the decoder, so its
// bytes do not describe the map and it is not shared.
func shareMaps(data []byte, members []jsonx.Member, m *api.ObjectMeta) {
	var labels, annotations []byte
	nl, na := 0, 0
	for _, mm := range members {
		switch string(data[mm.KeyStart:mm.KeyEnd]) {
		case "labels":
			labels, nl = data[mm.ValStart:mm.End], nl+1
		case "annotations":
			annotations, na = data[mm.ValStart:mm.End], na+1
		}
	}
	if nl != 1 {
		labels = nil
	}
	if na != 1 {
		annotations = nil
	}
	m.Labels = shareMap(labels, m.Labels)
	m.Annotations = shareMap(annotations, m.Annotations)
}
