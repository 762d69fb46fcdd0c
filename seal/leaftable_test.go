package seal

import (
	"fmt"
	"testing"

	"golang.org/x/mod/sumdb/tlog"
)

// TestLeafTableFindsEveryLeafAcrossGrowth: a table sized for few leaves
// (a first checkpoint) takes many more (later ones): every event's first
// leaf is found after each doubling, and a second leaf of an event is
// told as repeated, with the first one's index.
func TestLeafTableFindsEveryLeafAcrossGrowth(t *testing.T) {
	tab := newLeafTable(10)
	const n = 5000
	for i := range n {
		if _, again := tab.add(keyOf(fmt.Sprint("event-", i)), tlog.RecordHash([]byte{byte(i)})); again {
			t.Fatalf("leaf %d: a first leaf told as repeated", i)
		}
	}
	if len(tab.slots) < 2*n {
		t.Fatalf("%d slots for %d leaves: the table did not grow", len(tab.slots), n)
	}
	for i := range n {
		if at, ok := tab.at(keyOf(fmt.Sprint("event-", i))); !ok || at != int64(i) {
			t.Fatalf("event-%d: found at %d (%v), want %d", i, at, ok, i)
		}
	}
	if _, ok := tab.at(keyOf("event-x")); ok {
		t.Fatal("an event of no leaf is found")
	}
	if earlier, again := tab.add(keyOf("event-1234"), tlog.Hash{}); !again || earlier != 1234 {
		t.Fatalf("a second leaf of event-1234: repeated %v of %d, want of 1234", again, earlier)
	}
	if at, _ := tab.at(keyOf("event-1234")); at != 1234 || tab.state[n] != repeated {
		t.Fatalf("after the repeated leaf: found at %d, its state %d", at, tab.state[n])
	}
}
