package dev.strata.lsm.wal;

import static dev.strata.lsm.wal.WalFormat.BLOCK_SIZE;
import static dev.strata.lsm.wal.WalFormat.HEADER_SIZE;

import dev.strata.lsm.CorruptionException;
import dev.strata.lsm.StoreException;
import dev.strata.lsm.io.IoPurpose;
import dev.strata.lsm.io.OpenMode;
import dev.strata.lsm.io.PageFile;
import dev.strata.lsm.io.StorageIO;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * Reads the logical records of one WAL segment in order, one block at a time. Not thread
 * safe. The segment is read as it was when the reader was opened.
 *
 * <h2>How the record stream ends</h2>
 * Reading stops at the end of the file, or at the first place where no valid physical
 * record can be read: a header or payload cut short by the end of the file, a length
 * that overruns its block, a type outside 1..4, a checksum mismatch, an all-zero header
 * (a zero-filled or preallocated tail), or fragments out of order. What happens then
 * depends on what lies <em>after</em> that place. The reader scans forward byte by byte
 * for a physical record that starts a logical record (FULL or FIRST), fits in its block
 * and whose CRC32C matches:
 * <ul>
 *   <li>if there is none, the damage is a torn tail: {@link #next()} returns null, and
 *       {@link #validEnd()} tells where the last complete logical record ends (an
 *       incomplete fragmented record at the tail is dropped whole);</li>
 *   <li>if there is one, records were lost before the tail: {@link #next()} throws
 *       {@link CorruptionException} naming the file and the offset of the damaged
 *       physical record.</li>
 * </ul>
 * Valid MIDDLE and LAST fragments met by the scan do not count (the scan steps over
 * them): they may be the rest of the very record that was damaged, so damage anywhere in
 * the final logical record is a torn tail, however many blocks that record spans.
 *
 * <h2>Segment header</h2>
 * The first physical record must be a valid SEGMENT_HEADER with the right magic, format
 * version 1 and, when the file name is a segment name, the number in that name;
 * otherwise opening throws {@link CorruptionException}. Three cases count as an empty
 * segment instead, because a crash before the first write reached the disk leaves them:
 * a 0-byte file, a file shorter than the header record, and a zero-filled header (the
 * latter two only when no valid record follows; they have a tail to truncate).
 */
public final class WalReader implements Closeable {
    private static final int FRAME = 0;
    private static final int END_OF_FILE = 1;
    private static final int BAD = 2;

    private final PageFile file;
    private final long fileSize;
    private final byte[] block = new byte[BLOCK_SIZE];
    private long loadedBlock = -1;

    private OptionalLong segmentNumber = OptionalLong.empty();
    /** Offset of the next physical record to read. */
    private long pos;
    /** End of the last complete logical record (or of the segment header). */
    private long validEnd;
    private boolean done;
    /** Thrown again by every later {@link #next()}: the position after it means nothing. */
    private CorruptionException corruption;

    // The physical record found by the last readFrame().
    private long framePos;
    private int frameType;
    private int framePayload;
    private int frameLength;
    private String badReason;

    private byte[] assembly = new byte[0];
    private int assembled;

    private WalReader(PageFile file) throws IOException {
        this.file = file;
        this.fileSize = file.size();
    }

    /**
     * Opens {@code segment} for reading and checks its segment header.
     *
     * @throws CorruptionException naming the file if the header is missing or invalid
     * @throws StoreException      naming the file if it cannot be opened or read
     */
    public static WalReader open(StorageIO io, Path segment) {
        return open(io, segment, IoPurpose.WAL);
    }

    /** Opens a record log in the WAL segment format, counting its bytes under {@code purpose}. */
    public static WalReader open(StorageIO io, Path segment, IoPurpose purpose) {
        PageFile file;
        try {
            file = io.open(segment, OpenMode.READ, purpose);
        } catch (IOException e) {
            throw new StoreException("cannot open WAL segment " + segment + ": " + e, e);
        }
        try {
            WalReader reader = new WalReader(file);
            reader.readSegmentHeader();
            return reader;
        } catch (IOException | RuntimeException e) {
            try {
                file.close();
            } catch (IOException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            if (e instanceof IOException ioe) {
                throw new StoreException("cannot read WAL segment " + segment + ": " + ioe, ioe);
            }
            throw (RuntimeException) e;
        }
    }

    /** The segment file. */
    public Path path() {
        return file.path();
    }

    /**
     * The number stored in the segment header; empty when the segment is empty (it holds
     * no complete header).
     */
    public OptionalLong segmentNumber() {
        return segmentNumber;
    }

    /** The file's length when the reader was opened. */
    public long fileSize() {
        return fileSize;
    }

    /**
     * The offset just past the last complete logical record returned so far (just past
     * the segment header before the first, 0 for an empty segment). Once {@link #next()}
     * has returned null, the bytes from here to {@link #fileSize()} hold no complete
     * record: they are a torn tail, zero fill or block trailer, and truncating the file
     * here loses nothing.
     */
    public long validEnd() {
        return validEnd;
    }

    /**
     * The next logical record, or null when the segment holds no more (see the class
     * comment for how the end is decided).
     *
     * @throws CorruptionException naming the file and offset if a damaged record is
     *                             followed by a valid one; later calls throw it again
     * @throws StoreException      naming the file if it cannot be read
     */
    public WalRecord next() {
        if (corruption != null) {
            throw corruption;
        }
        if (done) {
            return null;
        }
        try {
            return readRecord();
        } catch (CorruptionException e) {
            corruption = e;
            throw e;
        }
    }

    private WalRecord readRecord() {
        long recordStart = -1;
        assembled = 0;
        while (true) {
            int status = readFrame();
            if (status == END_OF_FILE) {
                // Inside a fragmented record this drops it: validEnd is still before it.
                done = true;
                return null;
            }
            if (status == BAD) {
                endOrCorrupt(framePos, badReason, framePos + 1);
                return null;
            }
            switch (frameType) {
                case WalFormat.TYPE_FULL -> {
                    if (recordStart >= 0) {
                        throw brokenSequence(recordStart);
                    }
                    validEnd = pos;
                    return new WalRecord(framePos, pos,
                            Arrays.copyOfRange(block, framePayload, framePayload + frameLength));
                }
                case WalFormat.TYPE_FIRST -> {
                    if (recordStart >= 0) {
                        throw brokenSequence(recordStart);
                    }
                    recordStart = framePos;
                    assemble();
                }
                default -> {
                    if (recordStart < 0) {
                        // A valid continuation without its start; step over it when scanning.
                        endOrCorrupt(framePos, WalFormat.typeName(frameType) + " fragment without a FIRST", pos);
                        return null;
                    }
                    assemble();
                    if (frameType == WalFormat.TYPE_LAST) {
                        validEnd = pos;
                        return new WalRecord(recordStart, pos, Arrays.copyOf(assembly, assembled));
                    }
                }
            }
        }
    }

    /** Closes the file. */
    @Override
    public void close() {
        try {
            file.close();
        } catch (IOException e) {
            throw new StoreException("cannot close WAL segment " + file.path() + ": " + e, e);
        }
    }

    private void readSegmentHeader() {
        if (fileSize == 0) {
            done = true;
            return;
        }
        if (fileSize < WalFormat.SEGMENT_HEADER_RECORD) {
            endOrCorrupt(0, "segment header cut short by end of file", 1);
            return;
        }
        loadBlock(0);
        int crc = intAt(0);
        int len = u16At(4);
        int type = block[6] & 0xff;
        if (crc == 0 && len == 0 && type == 0) {
            endOrCorrupt(0, "zero-filled segment header", 1);
            return;
        }
        Path path = file.path();
        if (type != WalFormat.TYPE_SEGMENT_HEADER) {
            throw new CorruptionException(path, 0, "WAL segment " + path
                    + ": missing segment header, first record at offset 0 has " + WalFormat.typeName(type));
        }
        if (len != WalFormat.SEGMENT_HEADER_PAYLOAD) {
            throw new CorruptionException(path, 0, "WAL segment " + path + ": segment header at offset 0 has length "
                    + len + ", expected " + WalFormat.SEGMENT_HEADER_PAYLOAD);
        }
        if (WalFormat.checksum((byte) type, block, HEADER_SIZE, len) != crc) {
            throw new CorruptionException(path, 0, "WAL segment " + path + ": checksum mismatch in segment header at offset 0");
        }
        ByteBuffer header = ByteBuffer.wrap(block, HEADER_SIZE, len);
        int magic = header.getInt();
        if (magic != WalFormat.MAGIC) {
            throw new CorruptionException(path, 0, String.format(
                    "WAL segment %s: bad magic 0x%08x at offset 0, expected 0x%08x", path, magic, WalFormat.MAGIC));
        }
        int version = header.getShort() & 0xffff;
        if (version != WalFormat.FORMAT_VERSION) {
            throw new CorruptionException(path, 0, "WAL segment " + path + ": unsupported format version " + version
                    + ", this reader reads version " + WalFormat.FORMAT_VERSION);
        }
        long number = header.getLong();
        OptionalLong named = WalSegments.parseNumber(path);
        if (named.isPresent() && named.getAsLong() != number) {
            throw new CorruptionException(path, 0, "WAL segment " + path + ": header says segment " + number
                    + " but the file name says " + named.getAsLong());
        }
        segmentNumber = OptionalLong.of(number);
        pos = WalFormat.SEGMENT_HEADER_RECORD;
        validEnd = pos;
    }

    /**
     * Reads the physical record at {@code pos} (after skipping a block trailer) into the
     * frame fields and advances {@code pos} past it. Returns FRAME, END_OF_FILE, or BAD
     * with {@code badReason} set; {@code framePos} is where the record was looked for.
     */
    private int readFrame() {
        int inBlock = (int) (pos % BLOCK_SIZE);
        if (BLOCK_SIZE - inBlock < HEADER_SIZE) {
            pos += BLOCK_SIZE - inBlock;
            inBlock = 0;
        }
        framePos = pos;
        if (pos >= fileSize) {
            return END_OF_FILE;
        }
        if (fileSize - pos < HEADER_SIZE) {
            badReason = "record header cut short by end of file";
            return BAD;
        }
        loadBlock(pos / BLOCK_SIZE);
        int crc = intAt(inBlock);
        int len = u16At(inBlock + 4);
        int type = block[inBlock + 6] & 0xff;
        if (crc == 0 && len == 0 && type == 0) {
            badReason = "zero-filled record header";
            return BAD;
        }
        if (type < WalFormat.TYPE_FULL || type > WalFormat.TYPE_LAST) {
            badReason = "invalid record type " + type;
            return BAD;
        }
        if (inBlock + HEADER_SIZE + len > BLOCK_SIZE) {
            badReason = "record length " + len + " overruns its block";
            return BAD;
        }
        if (pos + HEADER_SIZE + len > fileSize) {
            badReason = WalFormat.typeName(type) + " record of length " + len + " cut short by end of file";
            return BAD;
        }
        if (WalFormat.checksum((byte) type, block, inBlock + HEADER_SIZE, len) != crc) {
            badReason = "checksum mismatch in " + WalFormat.typeName(type) + " record of length " + len;
            return BAD;
        }
        frameType = type;
        framePayload = inBlock + HEADER_SIZE;
        frameLength = len;
        pos += HEADER_SIZE + len;
        return FRAME;
    }

    /**
     * Ends the record stream at damage found at {@code badPos}, unless a valid record
     * starts at or after {@code scanFrom}: then the damage is not a tail and this throws.
     */
    private void endOrCorrupt(long badPos, String reason, long scanFrom) {
        long next = findRecordStart(scanFrom);
        if (next >= 0) {
            Path path = file.path();
            throw new CorruptionException(path, badPos, "WAL segment " + path + ": " + reason + " at offset " + badPos
                    + ", but a valid record follows at offset " + next + "; records before the tail are lost");
        }
        done = true;
    }

    private CorruptionException brokenSequence(long recordStart) {
        Path path = file.path();
        return new CorruptionException(path, framePos, "WAL segment " + path + ": expected a MIDDLE or LAST fragment of"
                + " the record at offset " + recordStart + " but found a " + WalFormat.typeName(frameType)
                + " record at offset " + framePos);
    }

    /**
     * The offset of the first physical record at or after {@code from} that is FULL or
     * FIRST, fits in its block and has a matching checksum; -1 if there is none.
     */
    private long findRecordStart(long from) {
        long p = from;
        while (p + HEADER_SIZE <= fileSize) {
            int inBlock = (int) (p % BLOCK_SIZE);
            if (BLOCK_SIZE - inBlock < HEADER_SIZE) {
                p += BLOCK_SIZE - inBlock;
                continue;
            }
            loadBlock(p / BLOCK_SIZE);
            int type = block[inBlock + 6] & 0xff;
            if (type >= WalFormat.TYPE_FULL && type <= WalFormat.TYPE_LAST) {
                int len = u16At(inBlock + 4);
                if (inBlock + HEADER_SIZE + len <= BLOCK_SIZE && p + HEADER_SIZE + len <= fileSize
                        && WalFormat.checksum((byte) type, block, inBlock + HEADER_SIZE, len) == intAt(inBlock)) {
                    if (type == WalFormat.TYPE_FULL || type == WalFormat.TYPE_FIRST) {
                        return p;
                    }
                    // A verified continuation: its payload is data, not a place to look for headers.
                    p += HEADER_SIZE + len;
                    continue;
                }
            }
            p++;
        }
        return -1;
    }

    private void assemble() {
        if (assembled + frameLength > assembly.length) {
            assembly = Arrays.copyOf(assembly, Math.max(assembled + frameLength, assembly.length * 2));
        }
        System.arraycopy(block, framePayload, assembly, assembled, frameLength);
        assembled += frameLength;
    }

    private void loadBlock(long index) {
        if (index == loadedBlock) {
            return;
        }
        long start = index * BLOCK_SIZE;
        int length = (int) Math.min(BLOCK_SIZE, fileSize - start);
        loadedBlock = -1;
        try {
            file.readFully(ByteBuffer.wrap(block, 0, length), start);
        } catch (IOException e) {
            throw new StoreException("cannot read WAL segment " + file.path() + " at offset " + start + ": " + e, e);
        }
        loadedBlock = index;
    }

    private int intAt(int at) {
        return (block[at] & 0xff) << 24 | (block[at + 1] & 0xff) << 16 | (block[at + 2] & 0xff) << 8 | (block[at + 3] & 0xff);
    }

    private int u16At(int at) {
        return (block[at] & 0xff) << 8 | (block[at + 1] & 0xff);
    }
}
