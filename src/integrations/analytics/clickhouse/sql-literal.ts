/**
 * The one way a value enters ClickHouse SQL as text. ClickHouse 18.16 has no query parameters
 * (`{name:Type}` arrived in 19.x), so every value in a query is written by `literal`, and by
 * nothing else. Strings are written as UTF-8 (a lone UTF-16 surrogate becomes U+FFFD, as Node
 * encodes it); Buffers as their exact bytes. In a string, printable ASCII other than `'` and `\`
 * and every character from U+0080 on (valid UTF-8, which the client sends as such) are written
 * as themselves; every other byte is `\xHH`: quotes, backslashes, NUL, control characters. In a
 * Buffer every byte outside printable ASCII is `\xHH`, so bytes that are not UTF-8 survive the
 * query text. A literal ends exactly where its closing quote is. Long values need the server's
 * `max_query_size` (256 KiB by default) raised: the store asks for 64 MiB.
 */
export type SqlValue = string | Buffer | number | bigint | boolean | null | readonly SqlValue[];

const HEX = Array.from({ length: 256 }, (_, byte) => `\\x${byte.toString(16).padStart(2, '0')}`);
const PLAIN = Array.from({ length: 256 }, (_, byte) =>
  byte >= 0x20 && byte < 0x7f && byte !== 0x27 && byte !== 0x5c ? String.fromCharCode(byte) : HEX[byte],
);

export function literal(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return stringLiteral(value);
  if (Buffer.isBuffer(value)) return bytesLiteral(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`Not a safe integer for SQL: ${value}`);
    // Negative literals are parsed as a unary minus applied to a number; parenthesised, they
    // stay one operand wherever they stand.
    return value < 0 ? `(${value})` : String(value);
  }
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  throw new Error(`Unsupported SQL value of type ${typeof value}`);
}

function stringLiteral(value: string): string {
  const text = value.toWellFormed();
  let out = "'";
  let plainFrom = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // Control characters, DEL, `'` and `\` are escaped; everything else is itself.
    if (unit < 0x20 || unit === 0x7f || unit === 0x27 || unit === 0x5c) {
      out += text.slice(plainFrom, i) + (HEX[unit] as string);
      plainFrom = i + 1;
    }
  }
  return `${out}${text.slice(plainFrom)}'`;
}

function bytesLiteral(bytes: Buffer): string {
  let out = "'";
  for (const byte of bytes) out += PLAIN[byte];
  return `${out}'`;
}

/** A database or table name: plain ASCII identifiers only, back-quoted. */
export function identifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`Not a valid ClickHouse identifier: ${JSON.stringify(name)}`);
  }
  return `\`${name}\``;
}
