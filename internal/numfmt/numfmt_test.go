package numfmt

import "testing"

func TestThousands(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {19859, "19,859"}, {-1200, "-1,200"},
		{1234567, "1,234,567"}, {-999, "-999"}, {-9223372036854775808, "-9,223,372,036,854,775,808"}} {
		if got := Thousands(tt.n); got != tt.want {
			t.Errorf("Thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := Thousands(8000); got != "8,000" {
		t.Errorf("Thousands(int 8000) = %q", got)
	}
}
