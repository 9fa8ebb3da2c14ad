package protocol

import (
	"regexp"
	"testing"
)

func TestNewUUIDIsARandomUUID(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for _, pair := range [][2]uint64{{0, 0}, {^uint64(0), ^uint64(0)}, {0x0123456789abcdef, 0xfedcba9876543210}} {
		if id := NewUUID(pair[0], pair[1]); !v4.MatchString(id) {
			t.Errorf("NewUUID(%x, %x) = %s", pair[0], pair[1], id)
		}
	}
	if got := NewUUID(0x0123456789abcdef, 0xfedcba9876543210); got != "01234567-89ab-4def-bedc-ba9876543210" {
		t.Errorf("got %s", got)
	}
}
