package labels

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// This file holds the text side of label selectors: the parser of the
// string form (client-go's labels.Parse) and the syntax rules for label
// keys and values (apimachinery's validation.IsQualifiedName and
// IsValidLabelValue).
//
// The grammar, whitespace allowed between tokens:
//
//	selector    = "" | requirement { "," requirement }
//	requirement = "!" KEY
//	            | KEY                                  (exists)
//	            | KEY ( "=" | "==" | "!=" ) [ VALUE ]  (a missing VALUE is "")
//	            | KEY ( "in" | "notin" ) "(" list ")"
//	list        = [ VALUE ] { "," [ VALUE ] }          ("()" is the set {""})
//
// KEY and VALUE are runs of characters other than whitespace and
// = ! ( ) , < >; they are then checked against the label rules.

// ErrInvalidLabel is wrapped by errors about a label key or value that
// breaks the Kubernetes syntax rules.
var ErrInvalidLabel = errors.New("invalid label")

// ParseSelector parses the string form of a label selector ("app=web,
// tier in (a,b), !canary"). The empty string selects everything. Errors
// wrap ErrInvalidSelector and give the byte offset of the problem.
func ParseSelector(s string) (Selector, error) {
	p := selectorParser{src: s}
	reqs, err := p.parse()
	if err != nil {
		return Selector{}, err
	}
	return NewSelector(reqs...), nil
}

// MustParseSelector is ParseSelector for selectors written in code; it
// panics on an error.
func MustParseSelector(s string) Selector {
	sel, err := ParseSelector(s)
	if err != nil {
		panic(err)
	}
	return sel
}

// tokenKind classifies a token of the selector string.
type tokenKind uint8

const (
	tokEnd       tokenKind = iota // end of input
	tokIdent                      // key, value or the words in / notin
	tokNot                        // !
	tokEquals                     // = or ==
	tokNotEquals                  // !=
	tokOpen                       // (
	tokClose                      // )
	tokComma                      // ,
	tokBad                        // < or >: valid in field selectors only
)

// token is one lexeme; pos is its byte offset in the input.
type token struct {
	kind tokenKind
	text string
	pos  int
}

// describe names a token for error messages.
func (t token) describe() string {
	if t.kind == tokEnd {
		return "end of selector"
	}
	return fmt.Sprintf("%q", t.text)
}

// selectorParser is a recursive-descent parser with one token of lookahead.
type selectorParser struct {
	src string
	// pos is the offset of the first byte not yet lexed.
	pos int
	// peeked holds the lookahead token when hasPeek is set.
	peeked  token
	hasPeek bool
}

// parse reads the whole input.
func (p *selectorParser) parse() ([]Requirement, error) {
	if p.peek().kind == tokEnd {
		return nil, nil
	}
	var reqs []Requirement
	for {
		r, err := p.requirement()
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
		switch t := p.next(); t.kind {
		case tokEnd:
			return reqs, nil
		case tokComma:
		default:
			return nil, p.errorf(t.pos, "expected ',' or end of selector, found %s", t.describe())
		}
	}
}

// requirement reads one requirement.
func (p *selectorParser) requirement() (Requirement, error) {
	t := p.next()
	if t.kind == tokNot {
		key := p.next()
		if key.kind != tokIdent {
			return Requirement{}, p.errorf(key.pos, "expected a label key after '!', found %s", key.describe())
		}
		return p.build(key, SelectorOpDoesNotExist, nil)
	}
	if t.kind != tokIdent {
		return Requirement{}, p.errorf(t.pos, "expected a label key, found %s", t.describe())
	}
	op := p.next()
	switch {
	case op.kind == tokEnd || op.kind == tokComma:
		p.unread(op)
		return p.build(t, SelectorOpExists, nil)
	case op.kind == tokEquals || op.kind == tokNotEquals:
		value := ""
		if v := p.peek(); v.kind == tokIdent {
			value = p.next().text
		} else if v.kind != tokEnd && v.kind != tokComma {
			return Requirement{}, p.errorf(v.pos, "expected a value after %q, found %s", op.text, v.describe())
		}
		kind := SelectorOpEquals
		if op.kind == tokNotEquals {
			kind = SelectorOpNotEquals
		}
		return p.build(t, kind, []string{value})
	case op.kind == tokIdent && (op.text == "in" || op.text == "notin"):
		values, err := p.valueList()
		if err != nil {
			return Requirement{}, err
		}
		kind := SelectorOpIn
		if op.text == "notin" {
			kind = SelectorOpNotIn
		}
		return p.build(t, kind, values)
	}
	return Requirement{}, p.errorf(op.pos, "expected an operator (=, ==, !=, in, notin), ',' or end of selector after key %q, found %s", t.text, op.describe())
}

// valueList reads "(" list ")". Empty elements are the empty value.
func (p *selectorParser) valueList() ([]string, error) {
	open := p.next()
	if open.kind != tokOpen {
		return nil, p.errorf(open.pos, "expected '(', found %s", open.describe())
	}
	var values []string
	current, filled := "", false
	for {
		t := p.next()
		switch t.kind {
		case tokIdent:
			if filled {
				return nil, p.errorf(t.pos, "expected ',' or ')' between values, found %s", t.describe())
			}
			current, filled = t.text, true
		case tokComma, tokClose:
			values = append(values, current)
			current, filled = "", false
			if t.kind == tokClose {
				return values, nil
			}
		default:
			return nil, p.errorf(t.pos, "expected a value, ',' or ')', found %s", t.describe())
		}
	}
}

// build validates a parsed requirement, reporting problems at the key.
func (p *selectorParser) build(key token, op SelectorOperator, values []string) (Requirement, error) {
	r, err := newRequirement(key.text, op, values)
	if err != nil {
		return Requirement{}, p.errorf(key.pos, "%w", err)
	}
	return r, nil
}

// errorf returns a syntax error located at byte offset pos.
func (p *selectorParser) errorf(pos int, format string, args ...any) error {
	return fmt.Errorf("%w %q: at offset %d: %w", ErrInvalidSelector, p.src, pos, fmt.Errorf(format, args...))
}

// peek returns the next token without consuming it.
func (p *selectorParser) peek() token {
	if !p.hasPeek {
		p.peeked, p.hasPeek = p.lex(), true
	}
	return p.peeked
}

// next consumes and returns the next token.
func (p *selectorParser) next() token {
	t := p.peek()
	p.hasPeek = false
	return t
}

// unread pushes t back; at most one token may be pushed back.
func (p *selectorParser) unread(t token) { p.peeked, p.hasPeek = t, true }

// lex scans one token starting at p.pos.
func (p *selectorParser) lex() token {
	for p.pos < len(p.src) && isSelectorSpace(p.src[p.pos]) {
		p.pos++
	}
	start := p.pos
	if start == len(p.src) {
		return token{kind: tokEnd, pos: start}
	}
	two := ""
	if start+1 < len(p.src) {
		two = p.src[start : start+2]
	}
	switch {
	case two == "==":
		p.pos += 2
		return token{kind: tokEquals, text: two, pos: start}
	case two == "!=":
		p.pos += 2
		return token{kind: tokNotEquals, text: two, pos: start}
	}
	kind := tokIdent
	switch p.src[start] {
	case '=':
		kind = tokEquals
	case '!':
		kind = tokNot
	case '(':
		kind = tokOpen
	case ')':
		kind = tokClose
	case ',':
		kind = tokComma
	case '<', '>':
		kind = tokBad
	}
	if kind != tokIdent {
		p.pos++
		return token{kind: kind, text: p.src[start:p.pos], pos: start}
	}
	for p.pos < len(p.src) && !isSelectorSpace(p.src[p.pos]) && !isSelectorSymbol(p.src[p.pos]) {
		p.pos++
	}
	return token{kind: tokIdent, text: p.src[start:p.pos], pos: start}
}

func isSelectorSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isSelectorSymbol(c byte) bool {
	switch c {
	case '=', '!', '(', ')', ',', '<', '>':
		return true
	}
	return false
}

// Label syntax limits.
const (
	maxLabelNameLength   = 63  // name part of a key, and a value
	maxLabelPrefixLength = 253 // DNS subdomain prefix of a key
)

// ValidateLabelKey checks a label key: an optional DNS-subdomain prefix and
// "/", then a name of 1 to 63 characters from [A-Za-z0-9-_.] that starts and
// ends with an alphanumeric ("app", "app.kubernetes.io/name").
func ValidateLabelKey(key string) error {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		prefix, name = "", key
	} else if strings.Contains(name, "/") {
		return fmt.Errorf("%w: key %q: at most one '/' is allowed", ErrInvalidLabel, key)
	}
	switch {
	case name == "":
		return fmt.Errorf("%w: key %q: the name part must not be empty", ErrInvalidLabel, key)
	case len(name) > maxLabelNameLength:
		return fmt.Errorf("%w: key %q: the name part must be at most %d characters", ErrInvalidLabel, key, maxLabelNameLength)
	case !isLabelName(name):
		return fmt.Errorf("%w: key %q: the name part must consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric", ErrInvalidLabel, key)
	}
	if !hasPrefix {
		return nil
	}
	switch {
	case prefix == "":
		return fmt.Errorf("%w: key %q: the prefix before '/' must not be empty", ErrInvalidLabel, key)
	case len(prefix) > maxLabelPrefixLength:
		return fmt.Errorf("%w: key %q: the prefix must be at most %d characters", ErrInvalidLabel, key, maxLabelPrefixLength)
	case !isDNSSubdomain(prefix):
		return fmt.Errorf("%w: key %q: the prefix must be a DNS subdomain: lower-case alphanumerics, '-' and '.', each dot-separated part starting and ending with an alphanumeric", ErrInvalidLabel, key)
	}
	return nil
}

// ValidateLabelValue checks the value of label key: empty, or at most 63
// characters from [A-Za-z0-9-_.] starting and ending with an alphanumeric.
func ValidateLabelValue(key, value string) error {
	switch {
	case value == "":
		return nil
	case len(value) > maxLabelNameLength:
		return fmt.Errorf("%w: key %q: value must be at most %d characters", ErrInvalidLabel, key, maxLabelNameLength)
	case !isLabelName(value):
		return fmt.Errorf("%w: key %q: value %q must consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric", ErrInvalidLabel, key, value)
	}
	return nil
}

// ValidateLabels checks every key and value of a label set, in key order so
// that the error reported is deterministic.
func ValidateLabels(labels map[string]string) error {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := ValidateLabelKey(k); err != nil {
			return err
		}
		if err := ValidateLabelValue(k, labels[k]); err != nil {
			return err
		}
	}
	return nil
}

// isLabelName reports whether s (non-empty) matches
// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?.
func isLabelName(s string) bool {
	if !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isDNSSubdomain reports whether s (non-empty) is dot-separated parts each
// matching [a-z0-9]([-a-z0-9]*[a-z0-9])?.
func isDNSSubdomain(s string) bool {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			continue
		}
		part := s[start:i]
		if part == "" || !isLowerAlnum(part[0]) || !isLowerAlnum(part[len(part)-1]) {
			return false
		}
		for j := 1; j < len(part)-1; j++ {
			if c := part[j]; !isLowerAlnum(c) && c != '-' {
				return false
			}
		}
		start = i + 1
	}
	return true
}

func isAlnum(c byte) bool { return isLowerAlnum(c) || 'A' <= c && c <= 'Z' }

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
