package dev.strata.lsm.wal;

/**
 * One logical record read back from a WAL segment.
 *
 * @param offset  file offset of the header of the record's first physical record
 * @param end     file offset just past the record's last physical record; this is the
 *                value {@link WalWriter#append} returned for it
 * @param payload the record's bytes, a fresh array owned by the caller
 */
public record WalRecord(long offset, long end, byte[] payload) {

    /** Offsets and payload length; the payload bytes are left out. */
    @Override
    public String toString() {
        return "WalRecord[offset=" + offset + ", end=" + end + ", length=" + payload.length + "]";
    }
}
