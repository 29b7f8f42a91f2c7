package decode

import (
	"bytes"
	"time"

	"github.com/kcmlab/kcm/kube/internal/jsonx"
)

// How the marshaller spells values: which JSON values a field leaves out
// when it is zero, and which spellings of a scalar come back the same
// after a decode and a marshal. The remainder keeps every other one.

// isNull reports whether the value at d[i] is null.
func isNull(d []byte, i int) bool {
	return len(d)-i >= 4 && d[i] == 'n' && d[i+1] == 'u' && d[i+2] == 'l' && d[i+3] == 'l'
}

// zeroAt reports whether the value at d[i] decodes to the zero value of a
// field of schema s that the marshaller leaves out when zero, and where
// it ends.
func zeroAt(d []byte, i int, s *jsSchema) (int, bool) {
	if isNull(d, i) {
		return i + 4, true
	}
	empty := func(open, close byte) (int, bool) {
		if d[i] != open {
			return 0, false
		}
		j := jsonx.SkipWS(d, i+1)
		return j + 1, j < len(d) && d[j] == close
	}
	switch s.kind {
	case jsString, jsBytes:
		return i + 2, len(d)-i >= 2 && d[i] == '"' && d[i+1] == '"'
	case jsInt:
		end, err := jsonx.SkipValue(d, i)
		return end, err == nil && string(d[i:end]) == "0"
	case jsBool:
		return i + 5, len(d)-i >= 5 && string(d[i:i+5]) == "false"
	case jsSlice:
		return empty('[', ']')
	case jsMap:
		return empty('{', '}')
	}
	return 0, false
}

// canonical reports whether the marshaller writes the scalar v, decoded
// into a value of kind k, back as v (or as the same parsed value).
func canonical(v []byte, k jsKind) bool {
	switch k {
	case jsString:
		return v[0] == '"'
	case jsBytes:
		// base64 that decodes alike but is spelt differently (escapes,
		// line breaks) would come back in the standard spelling.
		return v[0] == '"' && bytes.IndexByte(v, '\\') < 0
	case jsInt:
		return canonicalInt(v)
	case jsBool:
		return string(v) == "true" || string(v) == "false"
	case jsTime:
		// The zero instant is written as null.
		return string(v) == "null" || (timeForm(v, false) && string(v) != `"0001-01-01T00:00:00Z"`)
	case jsMicroTime:
		return string(v) == "null" || (timeForm(v, true) && string(v) != `"0001-01-01T00:00:00.000000Z"`)
	case jsIntOrString:
		return v[0] == '"' || canonicalInt(v)
	}
	return false // opaque: kept as read
}

// canonicalInt reports whether v is an integer as strconv writes it.
func canonicalInt(v []byte) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
		if len(v) == 1 && v[0] == '0' {
			return false // -0 is written 0
		}
	}
	if len(v) == 0 || (v[0] == '0' && len(v) > 1) {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// timeForm reports whether v is "YYYY-MM-DDTHH:MM:SSZ" (or, micro, with
// six fractional digits): the only form Time and MicroTime write.
func timeForm(v []byte, micro bool) bool {
	const layout = `"dddd-dd-ddTdd:dd:ddZ"`
	const microLayout = `"dddd-dd-ddTdd:dd:dd.ddddddZ"`
	l := layout
	if micro {
		l = microLayout
	}
	if len(v) != len(l) {
		return false
	}
	for i := range len(l) {
		if l[i] == 'd' {
			if v[i] < '0' || v[i] > '9' {
				return false
			}
		} else if v[i] != l[i] {
			return false
		}
	}
	return true
}

// canonicalTime returns the instant of v, a time in the canonical form
// (timeForm), in the Local zone: what time.Parse(time.RFC3339 or
// RFC3339Nano) followed by Local returns, to the bit, without the
// general parser. ok is false for fields out of range (a month 13, a
// 31st of April, a second 60), which are left to time.Parse and its
// errors.
func canonicalTime(v []byte, micro bool) (t time.Time, ok bool) {
	num := func(i, n int) int {
		x := 0
		for _, c := range v[i : i+n] {
			x = x*10 + int(c-'0')
		}
		return x
	}
	// v is "YYYY-MM-DDTHH:MM:SS[.ffffff]Z", quotes included.
	year, month, day := num(1, 4), num(6, 2), num(9, 2)
	hour, minute, sec := num(12, 2), num(15, 2), num(18, 2)
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if micro {
		nsec = num(21, 6) * 1000
	}
	unix := daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec)
	return time.Unix(unix, int64(nsec)), true
}

// daysIn returns the number of days of month (1-12) of year.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days from 1970-01-01 to the proleptic
// Gregorian date year-month-day (year 0-9999).
func daysFromCivil(year, month, day int) int64 {
	if month <= 2 {
		year--
	}
	era := year / 400
	if year < 0 {
		era = (year - 399) / 400
	}
	yoe := year - era*400                     // [0, 399]
	doy := (153*((month+9)%12)+2)/5 + day - 1 // [0, 365], from March 1st
	doe := yoe*365 + yoe/4 - yoe/100 + doy    // [0, 146096]
	return int64(era)*146097 + int64(doe) - 719468
}
