/**
 * The secret guard of Compact Branch. Two questions, both asked of text, never of words:
 * - does a text hold one of the credentials in use (the key, the token, the account id)? Asked of the request before
 *   it is sent (a credential pasted into the conversation would go to the provider and into the file) and of the
 *   entry before it is written;
 * - does the provider's answer hold a credential-shaped value that the request did not? An answer is echoed into
 *   the file, so a value it introduced is refused. What the user wrote ("the Authorization: Bearer header") is in the
 *   request, so it is never a reason to refuse.
 */

/** Values shaped like credentials: bearer values, OpenAI keys, JWTs. Opaque provider ciphertext is not scanned. */
const CREDENTIAL_SHAPES = [
  /Bearer\s+[A-Za-z0-9._~+/-]{16,}=*/g,
  /\bsk-[A-Za-z0-9_-]{20,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** The credentials in use that `text` contains. */
export function credentialsIn(text: string, secrets: string[]): string[] {
  return secrets.filter((s) => s.length >= 6 && text.includes(s));
}

/** Credential-shaped values in `answer` that do not occur in `request`. */
export function introducedCredentials(answer: string, request: string): string[] {
  const found = new Set<string>();
  for (const shape of CREDENTIAL_SHAPES) for (const m of answer.matchAll(shape)) found.add(m[0]);
  return [...found].filter((v) => !request.includes(v));
}

/** JSON of provider output items without their encrypted content (ciphertext is opaque, and random enough to match). */
export function scannableJson(items: unknown): string {
  return JSON.stringify(items, (key, value: unknown) => (key === "encrypted_content" ? undefined : value));
}

/** A credential shown safely in a message: its kind and first characters only. */
export function redacted(value: string): string {
  return `${value.slice(0, Math.min(6, Math.floor(value.length / 4)))}…`;
}
