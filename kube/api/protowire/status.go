package protowire

import "fmt"

// A failure is a metav1.Status (k8s.io/apimachinery/pkg/apis/meta/v1
// generated.proto). kube-apiserver writes it in the encoding the request
// asked for, so a client that asks for protobuf gets a non-2xx answer, and
// a watch's ERROR event, as an enveloped Status:
//
//	message Status {
//	  optional ListMeta metadata = 1;        // not read
//	  optional string status = 2;            // "Success" or "Failure"
//	  optional string message = 3;
//	  optional string reason = 4;            // NotFound, Expired, ...
//	  optional StatusDetails details = 5;
//	  optional int32 code = 6;               // the HTTP status code
//	}
//	message StatusDetails {
//	  optional string name = 1;
//	  optional string group = 2;
//	  optional string kind = 3;
//	  optional string uid = 6;
//	  repeated StatusCause causes = 4;
//	  optional int32 retryAfterSeconds = 5;
//	}
//	message StatusCause {
//	  optional string reason = 1;
//	  optional string message = 2;
//	  optional string field = 3;
//	}
//
// kube/rest turns a Status read here into the same *rest.StatusError it
// builds from a JSON Status, so callers test failures the same way
// whatever the encoding.

// StatusKind is the kind an envelope holding a Status names.
const StatusKind = "Status"

// Status is a metav1.Status read by DecodeStatus. Its strings are copies:
// it does not alias the input.
type Status struct {
	Status  string
	Message string
	Reason  string
	Details *StatusDetails
	Code    int32
}

// StatusDetails is metav1.StatusDetails.
type StatusDetails struct {
	Name, Group, Kind, UID string
	Causes                 []StatusCause
	RetryAfterSeconds      int32
}

// StatusCause is metav1.StatusCause; Reason is its JSON "reason".
type StatusCause struct {
	Reason, Message, Field string
}

// DecodeStatus reads a Status message (an envelope's raw whose kind is
// StatusKind, or a list item). A details message seen twice merges, as
// protobuf merges embedded messages.
func DecodeStatus(msg []byte) (Status, error) {
	var s Status
	r := NewReader(msg)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return s, fmt.Errorf("status: %w", err)
		}
		switch f.Num {
		case 2, 3, 4:
			b, err := f.Message()
			if err != nil {
				return s, fmt.Errorf("status: %w", err)
			}
			switch f.Num {
			case 2:
				s.Status = string(b)
			case 3:
				s.Message = string(b)
			default:
				s.Reason = string(b)
			}
		case 5:
			b, err := f.Message()
			if err != nil {
				return s, fmt.Errorf("status: details: %w", err)
			}
			if s.Details == nil {
				s.Details = &StatusDetails{}
			}
			if err := readStatusDetails(b, s.Details); err != nil {
				return s, fmt.Errorf("status: details: %w", err)
			}
		case 6:
			if s.Code, err = f.Int32(); err != nil {
				return s, fmt.Errorf("status: code: %w", err)
			}
		}
	}
	return s, nil
}

func readStatusDetails(b []byte, d *StatusDetails) error {
	r := NewReader(b)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return err
		}
		switch f.Num {
		case 1, 2, 3, 6:
			v, err := f.Message()
			if err != nil {
				return err
			}
			switch f.Num {
			case 1:
				d.Name = string(v)
			case 2:
				d.Group = string(v)
			case 3:
				d.Kind = string(v)
			default:
				d.UID = string(v)
			}
		case 4:
			v, err := f.Message()
			if err != nil {
				return err
			}
			c, err := readStatusCause(v)
			if err != nil {
				return fmt.Errorf("cause %d: %w", len(d.Causes), err)
			}
			d.Causes = append(d.Causes, c)
		case 5:
			if d.RetryAfterSeconds, err = f.Int32(); err != nil {
				return err
			}
		}
	}
	return nil
}

func readStatusCause(b []byte) (StatusCause, error) {
	var c StatusCause
	r := NewReader(b)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return c, err
		}
		if f.Num < 1 || f.Num > 3 {
			continue
		}
		v, err := f.Message()
		if err != nil {
			return c, err
		}
		switch f.Num {
		case 1:
			c.Reason = string(v)
		case 2:
			c.Message = string(v)
		default:
			c.Field = string(v)
		}
	}
	return c, nil
}

// AppendStatus appends s as a Status message (no envelope): what
// kube-apiserver writes, for tests and fakes.
func AppendStatus(b []byte, s Status) []byte {
	b = appendNonEmpty(b, 2, s.Status)
	b = appendNonEmpty(b, 3, s.Message)
	b = appendNonEmpty(b, 4, s.Reason)
	if d := s.Details; d != nil {
		var m []byte
		m = appendNonEmpty(m, 1, d.Name)
		m = appendNonEmpty(m, 2, d.Group)
		m = appendNonEmpty(m, 3, d.Kind)
		for _, c := range d.Causes {
			var cm []byte
			cm = appendNonEmpty(cm, 1, c.Reason)
			cm = appendNonEmpty(cm, 2, c.Message)
			cm = appendNonEmpty(cm, 3, c.Field)
			m = AppendBytes(m, 4, cm)
		}
		if d.RetryAfterSeconds != 0 {
			m = AppendUint(m, 5, uint64(int64(d.RetryAfterSeconds)))
		}
		m = appendNonEmpty(m, 6, d.UID)
		b = AppendBytes(b, 5, m)
	}
	if s.Code != 0 {
		b = AppendUint(b, 6, uint64(int64(s.Code)))
	}
	return b
}

func appendNonEmpty(b []byte, num int32, v string) []byte {
	if v == "" {
		return b
	}
	return AppendString(b, num, v)
}
