/**
 * Envelope encryption of provider keys with AES-256-GCM. Every credential gets its own random data key,
 * which encrypts the provider key; the master key encrypts (wraps) the data key. Both ciphertexts are bound to
 * the credential's id as associated data, so an envelope copied onto another row does not decrypt.
 * Sealing (rare: create, rotate) uses WebCrypto off the main thread. Opening runs on every routed request, so
 * it uses node:crypto synchronously: two small AES-GCM decryptions cost far less than WebCrypto's
 * thread round trips (measured: ~190 µs of CPU per open with WebCrypto, under 10 µs synchronous with KeyObjects).
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

/** Seals and opens provider keys under one master key. */
export interface KeyVault {
  masterKeyId: string;
  /** Encrypts a provider key for the credential `credentialId`. */
  seal(material: ProviderKeyMaterial, credentialId: string): Promise<SealedKey>;
  /** Decrypts a credential's provider key. Call only where the key is about to be sent to its provider. */
  open(sealed: SealedKey, credentialId: string): Promise<ProviderKeyMaterial>;
}

/** Creates the vault for a master key. */
export function createKeyVault(masterKey: MasterKey): KeyVault {
  const wrappingKey = importKey(masterKey.key);
  const unwrappingKey = createSecretKey(masterKey.key);
  // An unused vault must not leave an unhandled rejection behind; callers see the failure on first use.
  wrappingKey.catch(() => {});
  const contextOf = (credentialId: string) => Buffer.from(`switchboard:byok:${credentialId}`);
  return {
    masterKeyId: masterKey.id,
    async seal(material, credentialId) {
      const context = contextOf(credentialId);
      const dataKey = randomBytes(32);
      const plaintext = Buffer.from(JSON.stringify({ api_key: material.apiKey, region: material.region }));
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
    },
    async open(sealed, credentialId) {
      if (sealed.masterKeyId !== masterKey.id) {
        throw new KeyVaultError(`the credential was encrypted under another master key (${sealed.masterKeyId}, this gateway has ${masterKey.id})`);
      }
      const context = contextOf(credentialId);
      const dataKey = decrypt(unwrappingKey, sealed.wrappedDataKey, context);
      try {
        const plaintext = decrypt(createSecretKey(dataKey), sealed.keyCiphertext, context);
        const parsed = JSON.parse(plaintext.toString('utf8')) as { api_key: string; region: ResidencyRegion | null };
        plaintext.fill(0);
        return { apiKey: parsed.api_key, region: parsed.region };
      } finally {
        dataKey.fill(0);
      }
    },
  };
}
