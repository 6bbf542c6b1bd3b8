// A training set-up in a share link: "#train=" and the base64url of its JSON's UTF-8 (every
// setting and every point). Only the encoding is read here; the trainer's Python checks every
// field and says what it refuses.
export const TRAIN_PREFIX = "#train=";

export function encodeState(state) {
  let bin = "";
  for (const byte of new TextEncoder().encode(JSON.stringify(state))) bin += String.fromCharCode(byte);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// The set-up's JSON text, or throws with what is wrong with the token.
export function decodeState(token) {
  if (!/^[A-Za-z0-9_-]*$/.test(token)) throw new Error("it holds characters base64url does not use");
  let b64 = token.replace(/-/g, "+").replace(/_/g, "/");
  while (b64.length % 4) b64 += "=";
  let text;
  try {
    const bin = atob(b64);
    text = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0)));
  } catch (err) {
    throw new Error("it was cut short or changed");
  }
  let value;
  try { value = JSON.parse(text); } catch (err) { throw new Error("it is not a whole set-up"); }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("it is not a set-up");
  return text;
}

// {} without a set-up in the fragment, {state: JSON text} with one, {error: why} for one that cannot be read.
export function stateFromHash(hash) {
  if (!hash.startsWith(TRAIN_PREFIX)) return {};
  try { return { state: decodeState(hash.slice(TRAIN_PREFIX.length)) }; } catch (err) { return { error: err.message }; }
}
