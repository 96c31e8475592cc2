/**
 * ClickHouse's RowBinary format, written and read in the process: each row's columns in order,
 * integers little-endian, strings and arrays as a LEB128 length and their bytes or elements,
 * Nullable as one byte (1: NULL) before the value. Ingestion sends its inserts and its lookups'
 * lists this way and reads the lookups' answers so: no JSON to write or parse on either side, and
 * the visitor key's two UInt64 go as its own bytes, with no decimal text (18.16 reads and writes
 * RowBinary, including in the HTTP interface's external data).
 *
 * Visitor keys and event keys are handled in the process as latin1 strings (one character per
 * byte, big-endian as hashed); a UInt64 column holds 8 of those bytes, reversed.
 */

const INITIAL = 1 << 16;

export class RowBinaryWriter {
  private buffer = Buffer.allocUnsafe(INITIAL);
  private offset = 0;

  /** The bytes written so far (a view of the writer's buffer: use before writing more). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.offset);
  }

  get length(): number {
    return this.offset;
  }

  private room(n: number): void {
    if (this.offset + n <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.offset + n) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.offset);
    this.buffer = grown;
  }

  /** Starts over, keeping the buffer grown so far (once the bytes written are no longer needed). */
  reset(): void {
    this.offset = 0;
  }

  // Integers are stored byte by byte: Buffer's writeUInt32LE and kin check their arguments on
  // every call, which cost an append's rows more than the stores themselves.

  uint8(value: number): void {
    this.room(1);
    this.buffer[this.offset++] = value;
  }

  /** `n` bytes of 0: the zero values of the columns a row leaves empty. */
  zeros(n: number): void {
    this.room(n);
    const b = this.buffer;
    const end = this.offset + n;
    for (let o = this.offset; o < end; o++) b[o] = 0;
    this.offset = end;
  }

  uint16(value: number): void {
    this.room(2);
    const b = this.buffer;
    const o = this.offset;
    b[o] = value & 0xff;
    b[o + 1] = (value >>> 8) & 0xff;
    this.offset = o + 2;
  }

  uint32(value: number): void {
    this.room(4);
    this.put32(value);
  }

  int32(value: number): void {
    this.room(4);
    this.put32(value);
  }

  /** A safe integer as Int64. */
  int64(value: number): void {
    this.room(8);
    this.put32(value);
    this.put32(Math.floor(value / 4294967296));
  }

  /** The low 32 bits of an integer, two's complement, little-endian (room already made). */
  private put32(value: number): void {
    const b = this.buffer;
    const o = this.offset;
    b[o] = value & 0xff;
    b[o + 1] = (value >>> 8) & 0xff;
    b[o + 2] = (value >>> 16) & 0xff;
    b[o + 3] = (value >>> 24) & 0xff;
    this.offset = o + 4;
  }

  /** 8 bytes of a big-endian key, at `start` in a Buffer, as a UInt64. */
  uint64FromBytes(key: Buffer, start: number): void {
    this.room(8);
    const b = this.buffer;
    const o = this.offset;
    for (let i = 0; i < 8; i++) b[o + i] = key[start + 7 - i] as number;
    this.offset = o + 8;
  }

  /** 8 characters of a big-endian latin1 key, at `start`, as a UInt64. */
  uint64FromLatin1(key: string, start: number): void {
    this.room(8);
    const b = this.buffer;
    const o = this.offset;
    for (let i = 0; i < 8; i++) b[o + i] = key.charCodeAt(start + 7 - i);
    this.offset = o + 8;
  }

  private varint(value: number): void {
    this.room(5);
    let v = value;
    while (v >= 0x80) {
      this.buffer[this.offset++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buffer[this.offset++] = v;
  }

  /** A String column, as UTF-8 (a lone surrogate becomes U+FFFD, as `toWellFormed` does). */
  string(value: string): void {
    // Most values are short: at most 3 bytes a UTF-16 unit, so ≤ 42 units fit a 1-byte length.
    if (value.length <= 42) {
      this.room(1 + value.length * 3);
      const start = this.offset + 1;
      const written = this.buffer.write(value, start, 'utf8');
      this.buffer[this.offset] = written;
      this.offset = start + written;
      return;
    }
    const length = Buffer.byteLength(value, 'utf8');
    this.varint(length);
    this.room(length);
    this.offset += this.buffer.write(value, this.offset, 'utf8');
  }

  nullableString(value: string | null): void {
    if (value === null) this.uint8(1);
    else {
      this.uint8(0);
      this.string(value);
    }
  }

  nullableUInt16(value: number | null): void {
    if (value === null) this.uint8(1);
    else {
      this.uint8(0);
      this.uint16(value);
    }
  }

  /** An Array(Int32) of the first `length` values (all of them unless given). */
  arrayInt32(values: ArrayLike<number>, length = values.length): void {
    this.varint(length);
    this.room(length * 4);
    for (let i = 0; i < length; i++) this.put32(values[i] as number);
  }
}

/** Reads a RowBinary answer, column by column in the order the query selects them. */
export class RowBinaryReader {
  private readonly buffer: Buffer;
  private offset = 0;

  constructor(buffer: Buffer) {
    this.buffer = buffer;
  }

  get done(): boolean {
    return this.offset >= this.buffer.length;
  }

  private need(n: number): void {
    if (this.offset + n > this.buffer.length) throw new Error('ClickHouse answer ended inside a row');
  }

  uint8(): number {
    this.need(1);
    return this.buffer[this.offset++] as number;
  }

  int32(): number {
    this.need(4);
    const value = this.buffer.readInt32LE(this.offset);
    this.offset += 4;
    return value;
  }

  uint32(): number {
    this.need(4);
    const value = this.buffer.readUInt32LE(this.offset);
    this.offset += 4;
    return value;
  }

  /** A UInt64 as its 8 bytes big-endian, in latin1 (see uint64FromLatin1). */
  uint64Latin1(): string {
    this.need(8);
    const b = this.buffer;
    const o = this.offset;
    this.offset += 8;
    return String.fromCharCode(
      b[o + 7] as number,
      b[o + 6] as number,
      b[o + 5] as number,
      b[o + 4] as number,
      b[o + 3] as number,
      b[o + 2] as number,
      b[o + 1] as number,
      b[o] as number,
    );
  }

  string(): string {
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.uint8();
      length += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    this.need(length);
    const value = this.buffer.toString('utf8', this.offset, this.offset + length);
    this.offset += length;
    return value;
  }
}
