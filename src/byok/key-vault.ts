/**
 * Envelope encryption of provider keys with AES-256-GCM. Every credential gets its own random data key,
 * which encrypts the provider key; the master key encrypts (wraps) the data key. Both ciphertexts are bound to
 * the credential's id as associated data, so an envelope copied onto another row does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { MasterKey } from '#src/byok/master-key.ts';

/** A provider key in memory: the raw key, and the region an object-style key names (openai, fireworks). */
export interface ProviderKeyMaterial {
  apiKey: string;
  region: 'us' | 'europe' | null;
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

function encrypt(key: Buffer, plaintext: Buffer, associatedData: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([FORMAT_VERSION]), iv, body, cipher.getAuthTag()]);
}

function decrypt(key: Buffer, sealed: Buffer, associatedData: Buffer): Buffer {
  if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== FORMAT_VERSION) throw new KeyVaultError('unknown envelope format');
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(associatedData);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch (error) {
    throw new KeyVaultError('envelope failed authentication', { cause: error });
  }
}

/** Seals and opens provider keys under one master key. */
export interface KeyVault {
  masterKeyId: string;
  /** Encrypts a provider key for the credential `credentialId`. */
  seal(material: ProviderKeyMaterial, credentialId: string): SealedKey;
  /** Decrypts a credential's provider key. Call only where the key is about to be sent to its provider. */
  open(sealed: SealedKey, credentialId: string): ProviderKeyMaterial;
}

/** Creates the vault for a master key. */
export function createKeyVault(masterKey: MasterKey): KeyVault {
  return {
    masterKeyId: masterKey.id,
    seal(material, credentialId) {
      const context = Buffer.from(`switchboard:byok:${credentialId}`);
      const dataKey = randomBytes(32);
      const plaintext = Buffer.from(JSON.stringify({ api_key: material.apiKey, region: material.region }));
      try {
        return {
          keyCiphertext: encrypt(dataKey, plaintext, context),
          wrappedDataKey: encrypt(masterKey.key, dataKey, context),
          masterKeyId: masterKey.id,
        };
      } finally {
        plaintext.fill(0);
        dataKey.fill(0);
      }
    },
    open(sealed, credentialId) {
      if (sealed.masterKeyId !== masterKey.id) {
        throw new KeyVaultError(`the credential was encrypted under another master key (${sealed.masterKeyId}, this gateway has ${masterKey.id})`);
      }
      const context = Buffer.from(`switchboard:byok:${credentialId}`);
      const dataKey = decrypt(masterKey.key, sealed.wrappedDataKey, context);
      try {
        const plaintext = decrypt(dataKey, sealed.keyCiphertext, context);
        const parsed = JSON.parse(plaintext.toString('utf8')) as { api_key: string; region: 'us' | 'europe' | null };
        plaintext.fill(0);
        return { apiKey: parsed.api_key, region: parsed.region };
      } finally {
        dataKey.fill(0);
      }
    },
  };
}
