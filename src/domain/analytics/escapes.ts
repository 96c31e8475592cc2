/**
 * Undoing what log formats escape. nginx and Apache write a byte they will not print as `\xHH`
 * (so `é` is `\xC3\xA9`); CloudFront URL-encodes user agents and referrers (`%20`). Bytes are
 * read as UTF-8; a byte that is not part of valid UTF-8 is kept as `%HH`, so nothing is lost
 * and no replacement character appears.
 */

const HEX = '0123456789ABCDEF';
const hexValue = (code: number): number => {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
};
const percent = (byte: number) => `%${HEX[byte >> 4]}${HEX[byte & 15]}`;

/** `\xC3\xA9`, `\"`, `\\`, `\n`, `\t` (nginx `escape=default`, Apache `%{…}i`) → text. */
export function unescapeLogText(value: string): string {
  if (!value.includes('\\')) return value;
  let out = '';
  let bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 92 && value[i + 1] === 'x' && i + 3 < value.length) {
      const high = hexValue(value.charCodeAt(i + 2));
      const low = hexValue(value.charCodeAt(i + 3));
      if (high >= 0 && low >= 0) {
        bytes.push((high << 4) | low);
        i += 3;
        continue;
      }
    }
    if (bytes.length > 0) {
      out += decodeBytes(bytes, percent);
      bytes = [];
    }
    if (c === 92 && i + 1 < value.length) {
      const next = value[++i] as string;
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'r' ? '\r' : next;
    } else out += value[i];
  }
  return bytes.length > 0 ? out + decodeBytes(bytes, percent) : out;
}

/** `Mozilla/5.0%20(Windows…` → `Mozilla/5.0 (Windows…` (CloudFront's user agents, referrers). */
export function percentDecodeText(value: string): string {
  if (!value.includes('%')) return value;
  return decodePercents(value, () => true);
}

// RFC 3986 unreserved characters: decoding their escapes never changes what a URL means.
const isUnreserved = (byte: number) =>
  (byte >= 65 && byte <= 90) ||
  (byte >= 97 && byte <= 122) ||
  (byte >= 48 && byte <= 57) ||
  byte === 45 ||
  byte === 46 ||
  byte === 95 ||
  byte === 126;

/**
 * One spelling per path: escapes of unreserved characters and of UTF-8 text (`%C3%A9` → `é`)
 * are decoded; other escapes stay, in upper case (`%2f` → `%2F`, `%20` stays). So `/café`,
 * `/caf%C3%A9` and `/caf%c3%a9` are one page.
 */
export function canonicalPercentEncoding(path: string): string {
  if (!path.includes('%')) return path;
  return decodePercents(path, (byte) => byte >= 0x80 || isUnreserved(byte));
}

function decodePercents(value: string, decodes: (byte: number) => boolean): string {
  let out = '';
  let bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) === 37 && i + 2 < value.length) {
      const high = hexValue(value.charCodeAt(i + 1));
      const low = hexValue(value.charCodeAt(i + 2));
      if (high >= 0 && low >= 0) {
        bytes.push((high << 4) | low);
        i += 2;
        continue;
      }
    }
    if (bytes.length > 0) {
      out += decodeBytes(bytes, (byte) => percent(byte), decodes);
      bytes = [];
    }
    out += value[i];
  }
  return bytes.length > 0 ? out + decodeBytes(bytes, percent, decodes) : out;
}

/**
 * Bytes as UTF-8 text; `kept` spells a byte that is not valid UTF-8 (or that `decodes` says to
 * leave escaped). Control characters and other whitespace than a space stay escaped too.
 */
function decodeBytes(
  bytes: number[],
  kept: (byte: number) => string,
  decodes: (byte: number) => boolean = () => true,
): string {
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      out += b < 0x20 || b === 0x7f || !decodes(b) ? kept(b) : String.fromCharCode(b);
      i++;
      continue;
    }
    const length = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    let code = length === 4 ? b & 0x07 : length === 3 ? b & 0x0f : b & 0x1f;
    let valid = length > 0 && i + length <= bytes.length;
    for (let k = 1; valid && k < length; k++) {
      const next = bytes[i + k] as number;
      if ((next & 0xc0) !== 0x80) valid = false;
      else code = (code << 6) | (next & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not valid UTF-8.
    if (valid && ((length === 3 && code < 0x800) || (length === 4 && code < 0x10000) || code > 0x10ffff))
      valid = false;
    if (valid && code >= 0xd800 && code <= 0xdfff) valid = false;
    if (!valid || !decodes(b) || (code >= 0x80 && code <= 0x9f) || /\s/u.test(String.fromCodePoint(code))) {
      if (valid) for (let k = 0; k < length; k++) out += kept(bytes[i + k] as number);
      else out += kept(b);
      i += valid ? length : 1;
      continue;
    }
    out += String.fromCodePoint(code);
    i += length;
  }
  return out;
}
