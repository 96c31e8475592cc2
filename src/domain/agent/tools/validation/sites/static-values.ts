/**
 * Values read from a program without running it (a site's JavaScript or TypeScript
 * configuration): literals, and UNKNOWN for whatever the program computes. The reader, with its
 * parser, is in config-program.ts, loaded only for a site that has such a configuration.
 */
/** A value the program computes at run time (a call, a condition, an import): not known here. */
export const UNKNOWN: unique symbol = Symbol('unknown');
export type StaticValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | typeof UNKNOWN
  | StaticValue[]
  | { [key: string]: StaticValue };

/** `value` as a plain object, or null. */
export function asObject(value: StaticValue): { [key: string]: StaticValue } | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
}

/** `value` when it is a string, else undefined. */
export function asString(value: StaticValue): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
