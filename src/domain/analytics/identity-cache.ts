/**
 * Visitor keys already computed, by (user agent, IP), for one salt scope (period and project).
 * Logs repeat the same visitors all day, and an HMAC per view would cost more than the rest of
 * the import. IPv4 clients (nearly all of them) live in typed arrays: an entry is five u32
 * words and 12 bytes of key, with no objects for the garbage collector to trace or copy, where
 * nested maps of strings and Buffers spent more time in GC than in lookups. Other addresses
 * (IPv6) go to an ordinary map.
 */
export class IdentityCache {
  private readonly agents = new Map<string, number>();
  /** Per slot: agent number + 1 (0: empty), IPv4 address, entry number. */
  private slots = new Uint32Array(3 * 1024);
  private mask = 1023;
  private entries = 0;
  /** Entry n's key is bytes [n·keyBytes, (n + 1)·keyBytes). */
  private pool: Uint8Array;
  private readonly others = new Map<string, Buffer>();
  private readonly keyBytes: number;

  constructor(keyBytes: number) {
    this.keyBytes = keyBytes;
    this.pool = new Uint8Array(1024 * keyBytes);
  }

  /** How many keys are held. */
  get size(): number {
    return this.entries + this.others.size;
  }

  /** The cached key, as a view that stays valid (the pool is never written over). */
  get(userAgent: string, ip: string): Buffer | undefined {
    const agent = this.agents.get(userAgent);
    if (agent === undefined) return undefined;
    const v4 = parseIPv4(ip);
    if (v4 === -1) return this.others.get(`${agent}\u0000${ip}`);
    const s = this.slots;
    for (let slot = slotOf(agent, v4) & this.mask; ; slot = (slot + 1) & this.mask) {
      const at = slot * 3;
      const a = s[at] as number;
      if (a === 0) return undefined;
      if (a === agent + 1 && s[at + 1] === v4) {
        return Buffer.from(this.pool.buffer, (s[at + 2] as number) * this.keyBytes, this.keyBytes);
      }
    }
  }

  set(userAgent: string, ip: string, key: Buffer): void {
    let agent = this.agents.get(userAgent);
    if (agent === undefined) {
      agent = this.agents.size;
      this.agents.set(userAgent, agent);
    }
    const v4 = parseIPv4(ip);
    if (v4 === -1) {
      this.others.set(`${agent}\u0000${ip}`, key);
      return;
    }
    if ((this.entries + 1) * 4 > (this.mask + 1) * 3) this.grow();
    const entry = this.entries++;
    if ((entry + 1) * this.keyBytes > this.pool.length) {
      // A new, larger pool: views handed out earlier keep the old one alive and unchanged.
      const grown = new Uint8Array(this.pool.length * 2);
      grown.set(this.pool);
      this.pool = grown;
    }
    this.pool.set(key.subarray(0, this.keyBytes), entry * this.keyBytes);
    this.place(agent + 1, v4, entry);
  }

  private place(agentPlusOne: number, v4: number, entry: number): void {
    const s = this.slots;
    let slot = slotOf(agentPlusOne - 1, v4) & this.mask;
    while (s[slot * 3] !== 0) slot = (slot + 1) & this.mask;
    s[slot * 3] = agentPlusOne;
    s[slot * 3 + 1] = v4;
    s[slot * 3 + 2] = entry;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = this.mask * 2 + 1;
    for (let at = 0; at < old.length; at += 3) {
      const a = old[at] as number;
      if (a !== 0) this.place(a, old[at + 1] as number, old[at + 2] as number);
    }
  }
}

function slotOf(agent: number, v4: number): number {
  return Math.imul(v4 ^ Math.imul(agent, 0x85ebca6b), 0x9e3779b1) >>> 7;
}

/**
 * A dotted-quad IPv4 address in its canonical form (no leading zeros) as a u32, else -1: the
 * cache may only merge strings that are the same address written the same way, because the
 * string itself is what gets hashed.
 */
export function parseIPv4(ip: string): number {
  const length = ip.length;
  if (length < 7 || length > 15) return -1;
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && octet === 0) return -1; // leading zero
      octet = octet * 10 + (c - 48);
      if (octet > 255) return -1;
      digits++;
    } else return -1;
  }
  if (digits === 0 || dots !== 3) return -1;
  return (value * 256 + octet) >>> 0;
}
