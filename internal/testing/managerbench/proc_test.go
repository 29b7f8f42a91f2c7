package managerbench

import (
	"errors"
	"os"
	"testing"
	"time"
)

// proc(5): /proc/<pid>/status holds VmRSS and VmHWM in kB; a kernel
// thread or zombie has neither.
func TestParseStatus(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		rss, hwm int64
		wantErr  bool
	}{
		{"both", "VmHWM:\t 2048 kB\nVmRSS:\t 1024 kB\n", 1 << 20, 2 << 20, false},
		{"kernel thread: no Vm lines", "Name:\tkthreadd\nState:\tS\n", 0, 0, true},
		{"only RSS", "VmRSS:\t 1024 kB\n", 0, 0, true},
		{"unit other than kB", "VmHWM:\t 2 MB\nVmRSS:\t 1 MB\n", 0, 0, true},
		{"not a number", "VmHWM:\t x kB\nVmRSS:\t 1 kB\n", 0, 0, true},
		{"similar keys ignored", "VmRSSX:\t 9 kB\nVmHWM:\t 1 kB\nVmRSS:\t 1 kB\n", 1 << 10, 1 << 10, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rss, hwm, err := ParseStatus([]byte(tt.in))
			if (err != nil) != tt.wantErr || rss != tt.rss || hwm != tt.hwm {
				t.Fatalf("ParseStatus = %d, %d, %v; want %d, %d, error %t", rss, hwm, err, tt.rss, tt.hwm, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrProcFormat) {
				t.Fatalf("error %v is not ErrProcFormat", err)
			}
		})
	}
}

// proc(5): utime and stime are fields 14 and 15 of /proc/<pid>/stat, in
// clock ticks; field 2, the command in parentheses, may contain ") (".
func TestParseStat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"plain", "1 (kcm) S 0 1 1 0 -1 0 0 0 0 0 100 50 0 0", 1500 * time.Millisecond, false},
		{"command with ') ('", "1 (a) (b) S 0 1 1 0 -1 0 0 0 0 0 7 3 0 0", 100 * time.Millisecond, false},
		{"no command", "1 kcm S 0", 0, true},
		{"too short", "1 (kcm) S 0 1 1 0 -1 0 0 0 0 0 100", 0, true},
		{"negative ticks", "1 (kcm) S 0 1 1 0 -1 0 0 0 0 0 -1 5 0 0", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStat([]byte(tt.in))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ParseStat = %v, %v; want %v, error %t", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// The real /proc of this test process: resident memory is positive and
// never above its peak.
func TestReadSampleSelf(t *testing.T) {
	s, err := ReadSample(os.Getpid(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if s.RSS <= 0 || s.HWM < s.RSS {
		t.Fatalf("RSS %d, HWM %d: want 0 < RSS <= HWM", s.RSS, s.HWM)
	}
	if _, err := ReadSample(-1, time.Now()); err == nil {
		t.Fatal("ReadSample(-1) succeeded")
	}
}

func TestParseLoadAvgErrors(t *testing.T) {
	for _, in := range []string{"", "1.0 2.0", "a b c"} {
		if _, err := ParseLoadAvg([]byte(in)); !errors.Is(err, ErrProcFormat) {
			t.Errorf("ParseLoadAvg(%q) error = %v, want ErrProcFormat", in, err)
		}
	}
}

func TestParseMemInfoAndCPUModel(t *testing.T) {
	total, err := ParseMemInfoTotal([]byte("MemTotal:       24684096 kB\nMemFree: 1 kB\n"))
	if err != nil || total != 24684096<<10 {
		t.Fatalf("ParseMemInfoTotal = %d, %v", total, err)
	}
	if _, err := ParseMemInfoTotal([]byte("MemFree: 1 kB\n")); !errors.Is(err, ErrProcFormat) {
		t.Fatalf("no MemTotal: error %v", err)
	}
	if got := ParseCPUModel([]byte("processor\t: 0\nmodel name\t: AMD EPYC 9B14\n")); got != "AMD EPYC 9B14" {
		t.Fatalf("ParseCPUModel = %q", got)
	}
}
