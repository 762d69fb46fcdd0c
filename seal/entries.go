package seal

import (
	"context"
	"github.com/auditlog/auditlog/audit/vlog"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// ReadEntries returns entry bundle t of the tenant's latest tree (C2SP
// tlog-tiles: leaves N·256 to N·256+W-1, each entry a big-endian uint16
// length then its bytes, as torchwood.AppendTileEntry writes them). A
// leaf of the entry format has its entry (vlog.LeafEntry: the event id
// and digest, whether the event is still stored or not); a leaf sealed
// before it (v1) has the event's canonical encoding, read from events.
// Errors: ENOTFOUND when the bundle reaches past the latest checkpoint,
// or for a v1 leaf whose event retention deleted (its entry is gone with
// it); EINVALID for a v1 event past the format's 64 KiB.
func ReadEntries(ctx context.Context, st vlog.Store, events audit.EventReader, tenant string, t tlog.Tile) ([]byte, error) {
	ls, err := st.LogState(ctx, tenant)
	if err != nil {
		return nil, err
	}
	if t.H != TileHeight || t.L != -1 || t.W < 1 || t.W > 1<<TileHeight {
		return nil, audit.Errorf(audit.EINVALID, "%s is not an entry bundle of height %d", torchwood.TilePath(t), TileHeight)
	}
	start := t.N << TileHeight
	if t.N < 0 || t.N > ls.Size>>TileHeight || start+int64(t.W) > ls.Size {
		return nil, audit.Errorf(audit.ENOTFOUND, "entry bundle %s reaches past the latest checkpoint (%d leaves)", torchwood.TilePath(t), ls.Size)
	}
	leaves, err := st.Leaves(ctx, tenant, start, t.W)
	if err != nil {
		return nil, err
	}
	if len(leaves) != t.W {
		return nil, audit.Errorf(audit.EINTERNAL, "the log of %s holds %d of the %d leaves from %d", tenant, len(leaves), t.W, start)
	}
	var out []byte
	for _, l := range leaves {
		entry, ok := l.Entry()
		if !ok {
			if entry, err = v1Entry(ctx, events, tenant, l); err != nil {
				return nil, err
			}
		}
		if out, err = torchwood.AppendTileEntry(out, entry); err != nil {
			return nil, audit.Wrap(audit.EINVALID, err, "the entry of leaf %d", l.Index)
		}
	}
	return out, nil
}

// v1Entry is the entry of a leaf sealed before the entry format: the
// event's canonical encoding, checked against the leaf.
func v1Entry(ctx context.Context, events audit.EventReader, tenant string, l vlog.Leaf) ([]byte, error) {
	e, err := events.GetEvent(ctx, tenant, l.EventID)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		return nil, audit.Errorf(audit.ENOTFOUND, "leaf %d was sealed before the entry format (auditlog-event-v1) and its event is deleted: its entry went with it", l.Index)
	}
	if err != nil {
		return nil, err
	}
	data := vlog.LeafData(e)
	if tlog.RecordHash(data) != l.Hash {
		return nil, audit.Errorf(audit.EINTERNAL, "the stored event of leaf %d is not the one sealed (log verify names it)", l.Index)
	}
	return data, nil
}
