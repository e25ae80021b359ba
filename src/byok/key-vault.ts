/**
 * Envelope encryption of provider keys with AES-256-GCM. Every credential gets its own random data key,
 * which encrypts the provider key; the master key encrypts (wraps) the data key. Both ciphertexts are bound to
 * the credential's id as associated data, so an envelope copied onto another row does not decrypt.
 * Sealing (rare: create, rotate) uses WebCrypto off the main thread. Opening runs on every routed request, so
 * it uses node:crypto synchronously: small AES-GCM decryptions cost far less than WebCrypto's thread round
 * trips (measured: ~190 µs of CPU per open with WebCrypto, under 10 µs synchronous with KeyObjects). An
 * envelope still in use (the same `SealedKey` object: the credential cache keeps it until the credential
 * changes) is deciphered once: its data key (a key object) and its opened provider key are remembered beside
 * it, in weak maps, so they go when it goes. Creating the decipher had been about 4% of the gateway's CPU on a
 * BYOK request (bench/ profile). The opened key is kept as bytes outside V8's heap, like the data key, never
 * as a string: a heap snapshot taken to debug the gateway holds no provider key beyond those of requests in
 * flight. Each `open` makes the string its caller sends, and the bytes are zeroed once the envelope is gone.
 */
import { createDecipheriv, createSecretKey, randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import type { MasterKey } from '#src/byok/master-key.ts';
import type { ResidencyRegion } from '#src/data-region.ts';

/** A provider key in memory: the raw key, and the region a region-bound key names (openai, fireworks). */
export interface ProviderKeyMaterial {
  apiKey: string;
  region: ResidencyRegion | null;
}

/** What is stored: the encrypted provider key, the wrapped data key and which master key wrapped it. */
export interface SealedKey {
  keyCiphertext: Buffer;
  wrappedDataKey: Buffer;
  masterKeyId: string;
}

/** Thrown when an envelope does not open: tampered with, copied to another credential, or another master key. */
export class KeyVaultError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'KeyVaultError';
  }
}

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const { subtle } = webcrypto;

type AesKey = webcrypto.CryptoKey;

function importKey(raw: Uint8Array): Promise<AesKey> {
  return subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

// Layout: version byte, 12-byte IV, ciphertext, 16-byte tag (WebCrypto appends the tag to the ciphertext).
async function encrypt(key: AesKey, plaintext: Uint8Array, associatedData: Uint8Array): Promise<Buffer> {
  const iv = randomBytes(IV_BYTES);
  const body = await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: associatedData, tagLength: TAG_BYTES * 8 }, key, plaintext);
  return Buffer.concat([Buffer.from([FORMAT_VERSION]), iv, Buffer.from(body)]);
}

// A KeyObject decrypts several times faster than a raw Buffer key, which node:crypto converts on every call.
function decrypt(key: KeyObject, sealed: Buffer, associatedData: Uint8Array): Buffer {
  if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== FORMAT_VERSION) throw new KeyVaultError('unknown envelope format');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 1 + IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch (error) {
    throw new KeyVaultError('envelope failed authentication', { cause: error });
  }
}

/** An opened envelope's provider key, as bytes outside V8's heap, and the credential it opened for. */
interface OpenedKey {
  credentialId: string;
  apiKey: Buffer;
  region: ResidencyRegion | null;
}

/** Seals and opens provider keys under one master key. */
export interface KeyVault {
  masterKeyId: string;
  /** Encrypts a provider key for the credential `credentialId`. */
  seal(material: ProviderKeyMaterial, credentialId: string): Promise<SealedKey>;
  /** Decrypts a credential's provider key. Call only where the key is about to be sent to its provider. */
  open(sealed: SealedKey, credentialId: string): Promise<ProviderKeyMaterial>;
  /**
   * Seals any other secret text in the same envelope, bound to `purpose` and the owning row's id (a
   * broadcast destination's headers and keys), so it never opens as a provider key or under another row.
   */
  sealSecret(plaintext: string, purpose: string, id: string): Promise<SealedKey>;
  /** Opens what `sealSecret` sealed with the same purpose and id. */
  openSecret(sealed: SealedKey, purpose: string, id: string): string;
}

/** Creates the vault for a master key. */
export function createKeyVault(masterKey: MasterKey): KeyVault {
  const wrappingKey = importKey(masterKey.key);
  const unwrappingKey = createSecretKey(masterKey.key);
  // An unused vault must not leave an unhandled rejection behind; callers see the failure on first use.
  wrappingKey.catch(() => {});
  const contextOf = (credentialId: string) => Buffer.from(`switchboard:byok:${credentialId}`);
  const sealBytes = async (plaintext: Buffer, context: Buffer): Promise<SealedKey> => {
    const dataKey = randomBytes(32);
    try {
      return {
        keyCiphertext: await encrypt(await importKey(dataKey), plaintext, context),
        wrappedDataKey: await encrypt(await wrappingKey, dataKey, context),
        masterKeyId: masterKey.id,
      };
    } finally {
      plaintext.fill(0);
      dataKey.fill(0);
    }
  };
  // The unwrapped data key of each envelope still held by a caller (the routing cache keeps an account's
  // envelopes until they change), as a KeyObject: key material in OpenSSL's memory beside the master key
  // itself, never a string on the JS heap. Keyed by the envelope object, so an entry lives exactly as long as
  // the envelope does. The provider key is deciphered, and checked against the credential's id, on the first
  // open for an id; later opens for that id read `openedKeys`, and any other id is deciphered, and refused.
  const dataKeys = new WeakMap<SealedKey, KeyObject>();
  // Each opened envelope's key with the credential it opened for, as bytes off the JS heap (see the file's head).
  const openedKeys = new WeakMap<SealedKey, OpenedKey>();
  const zeroWhenCollected = new FinalizationRegistry<Buffer>((bytes) => bytes.fill(0));
  const dataKeyOf = (sealed: SealedKey, context: Buffer): KeyObject => {
    const known = dataKeys.get(sealed);
    if (known) return known;
    const raw = decrypt(unwrappingKey, sealed.wrappedDataKey, context);
    try {
      const dataKey = createSecretKey(raw);
      dataKeys.set(sealed, dataKey);
      return dataKey;
    } finally {
      raw.fill(0);
    }
  };
  const openBytes = (sealed: SealedKey, context: Buffer): Buffer => {
    if (sealed.masterKeyId !== masterKey.id) {
      throw new KeyVaultError(`the credential was encrypted under another master key (${sealed.masterKeyId}, this gateway has ${masterKey.id})`);
    }
    return decrypt(dataKeyOf(sealed, context), sealed.keyCiphertext, context);
  };
  const secretContextOf = (purpose: string, id: string) => Buffer.from(`switchboard:${purpose}:${id}`);
  return {
    masterKeyId: masterKey.id,
    seal(material, credentialId) {
      return sealBytes(Buffer.from(JSON.stringify({ api_key: material.apiKey, region: material.region })), contextOf(credentialId));
    },
    async open(sealed, credentialId) {
      const known = openedKeys.get(sealed);
      if (known?.credentialId === credentialId && sealed.masterKeyId === masterKey.id) return { apiKey: known.apiKey.toString('utf8'), region: known.region };
      const plaintext = openBytes(sealed, contextOf(credentialId));
      const parsed = JSON.parse(plaintext.toString('utf8')) as { api_key: string; region: ResidencyRegion | null };
      plaintext.fill(0);
      // Its own backing store (not the shared pool), so zeroing it touches nothing else.
      const apiKey = Buffer.allocUnsafeSlow(Buffer.byteLength(parsed.api_key));
      apiKey.write(parsed.api_key, 'utf8');
      openedKeys.set(sealed, { credentialId, apiKey, region: parsed.region });
      zeroWhenCollected.register(sealed, apiKey);
      return { apiKey: parsed.api_key, region: parsed.region };
    },
    async sealSecret(plaintext, purpose, id) {
      if (purpose === 'byok') throw new KeyVaultError('the byok purpose belongs to provider keys');
      return sealBytes(Buffer.from(plaintext, 'utf8'), secretContextOf(purpose, id));
    },
    openSecret(sealed, purpose, id) {
      const plaintext = openBytes(sealed, secretContextOf(purpose, id));
      const text = plaintext.toString('utf8');
      plaintext.fill(0);
      return text;
    },
  };
}
