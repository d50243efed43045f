package plugin

import "testing"

func TestPatternsMeet(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		meet bool
	}{
		{"*/authorized_keys", "/h/.ssh/*", true},
		{"*.txt", "*/.git/hooks/pre-commit", false},
		{"/w/log-#.txt", "/h/.shiro-neko/*", false},
		{"/w/.git/hooks/pre-#", "*/.git/hooks/pre-commit", true},
		{"/w/#/config", "*/.git/config", true},
		{"/w/#", "*/.git/config", false}, // a name part holds no slash
		{"*", "/h/.bashrc", true},
		{"/tmp/x", "/h/.bashrc", false},
		{"/h/.ssh/#", "/h/.ssh/*", true},
	} {
		if got := patternsMeet(tt.a, tt.b); got != tt.meet {
			t.Errorf("patternsMeet(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.meet)
		}
		if got := patternsMeet(tt.b, tt.a); got != tt.meet {
			t.Errorf("patternsMeet(%q, %q) = %v, want %v (swapped)", tt.b, tt.a, got, tt.meet)
		}
	}
}
