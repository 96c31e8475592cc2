import { invalid } from '../errors.ts';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;
export const MAX_EMAIL_LENGTH = 254;

// The HTML standard's "valid email address" (what <input type=email> accepts): a practical
// rule that browsers apply the same way, rather than RFC 5322's full grammar.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** An email as stored: trimmed and lower-cased, so accounts compare as people expect. */
export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (value.length > MAX_EMAIL_LENGTH || !EMAIL.test(value)) {
    throw invalid(`email must be an email address like name@example.com`);
  }
  return value;
}

/** Length only: a long passphrase beats any rule about digits and symbols. */
export function checkPassword(password: string): string {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw invalid(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw invalid(`password must be at most ${MAX_PASSWORD_LENGTH} characters`);
  }
  return password;
}
