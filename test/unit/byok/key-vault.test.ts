import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyVault, KeyVaultError } from '#src/byok/key-vault.ts';
import { masterKeyId } from '#src/byok/master-key.ts';

function vaultWith(key = randomBytes(32)) {
  return createKeyVault({ key, id: masterKeyId(key), source: 'environment' });
}

const ID = '4688c676-42d3-49fa-b867-2bb0cba1bc1a';
const OTHER_ID = 'bdc3b584-3220-4c89-bab7-50b5edec1497';

describe('key vault', () => {
  it('round-trips plain and regional keys', async () => {
    const vault = vaultWith();
    expect(await vault.open(await vault.seal({ apiKey: 'sk-plain-0123456789', region: null }, ID), ID)).toEqual({ apiKey: 'sk-plain-0123456789', region: null });
    expect(await vault.open(await vault.seal({ apiKey: 'sk-eu-0123456789', region: 'europe' }, ID), ID)).toEqual({ apiKey: 'sk-eu-0123456789', region: 'europe' });
  });

  it('never stores the key in clear and never repeats a ciphertext', async () => {
    const vault = vaultWith();
    const raw = 'sk-secret-material-abcdefghijklmnop';
    const first = await vault.seal({ apiKey: raw, region: null }, ID);
    const second = await vault.seal({ apiKey: raw, region: null }, ID);
    for (const blob of [first.keyCiphertext, first.wrappedDataKey]) {
      expect(blob.includes(Buffer.from(raw))).toBe(false);
      expect(blob.toString('latin1')).not.toContain('secret-material');
    }
    expect(first.keyCiphertext.equals(second.keyCiphertext)).toBe(false);
    expect(first.wrappedDataKey.equals(second.wrappedDataKey)).toBe(false);
  });

  it.each([
    ['key ciphertext', 'keyCiphertext' as const, 20],
    ['key tag', 'keyCiphertext' as const, -1],
    ['wrapped data key', 'wrappedDataKey' as const, 15],
    ['wrapped data key iv', 'wrappedDataKey' as const, 2],
    ['format byte', 'keyCiphertext' as const, 0],
  ])('detects a flipped bit in the %s', async (_name, field, position) => {
    const vault = vaultWith();
    const sealed = await vault.seal({ apiKey: 'sk-tamper-0123456789', region: null }, ID);
    const tampered = Buffer.from(sealed[field]);
    const index = position < 0 ? tampered.length + position : position;
    tampered[index] = tampered[index]! ^ 0x01;
    await expect(vault.open({ ...sealed, [field]: tampered }, ID)).rejects.toThrow(KeyVaultError);
  });

  it('refuses an envelope moved to another credential', async () => {
    const vault = vaultWith();
    const sealed = await vault.seal({ apiKey: 'sk-moved-0123456789', region: null }, ID);
    await expect(vault.open(sealed, OTHER_ID)).rejects.toThrow(KeyVaultError);
  });

  it('still binds an envelope to its credential once its data key has been unwrapped', async () => {
    const vault = vaultWith();
    const sealed = await vault.seal({ apiKey: 'sk-remembered-0123456789', region: null }, ID);
    expect((await vault.open(sealed, ID)).apiKey).toBe('sk-remembered-0123456789');
    // The second open reuses the unwrapped data key; the provider key's own check still refuses the other id.
    await expect(vault.open(sealed, OTHER_ID)).rejects.toThrow(KeyVaultError);
    expect((await vault.open(sealed, ID)).apiKey).toBe('sk-remembered-0123456789');
    const flipped = Buffer.from(sealed.keyCiphertext);
    flipped[20] = flipped[20]! ^ 0x01;
    await expect(vault.open({ ...sealed, keyCiphertext: flipped }, ID)).rejects.toThrow(KeyVaultError);
  });

  it('opens an envelope still in use again without deciphering it, and still refuses it for another credential or master key', async () => {
    const vault = vaultWith();
    const sealed = await vault.seal({ apiKey: 'sk-opened-once-0123456789', region: 'europe' }, ID);
    const first = await vault.open(sealed, ID);
    expect(first).toEqual({ apiKey: 'sk-opened-once-0123456789', region: 'europe' });
    // A caller changing its copy changes nothing the next one gets.
    first.apiKey = 'changed';
    expect(await vault.open(sealed, ID)).toEqual({ apiKey: 'sk-opened-once-0123456789', region: 'europe' });
    await expect(vault.open(sealed, OTHER_ID)).rejects.toThrow(KeyVaultError);
    expect(await vault.open(sealed, ID)).toEqual({ apiKey: 'sk-opened-once-0123456789', region: 'europe' });
    // Not deciphered again: bytes changed in place (never done outside this test) go unnoticed by the same object…
    const original = Buffer.from(sealed.keyCiphertext);
    sealed.keyCiphertext[20] = sealed.keyCiphertext[20]! ^ 0x01;
    expect((await vault.open(sealed, ID)).apiKey).toBe('sk-opened-once-0123456789');
    // …and fail authentication in a copy, which is another envelope, opened (and checked) afresh.
    await expect(vault.open({ ...sealed }, ID)).rejects.toThrow(KeyVaultError);
    original.copy(sealed.keyCiphertext);
    expect(await vault.open({ ...sealed }, ID)).toEqual({ apiKey: 'sk-opened-once-0123456789', region: 'europe' });
    sealed.masterKeyId = 'another-master-key';
    await expect(vault.open(sealed, ID)).rejects.toThrow(/another master key/);
  });

  it('refuses an envelope of another master key, saying so', async () => {
    const sealed = await vaultWith().seal({ apiKey: 'sk-other-0123456789', region: null }, ID);
    await expect(vaultWith().open(sealed, ID)).rejects.toThrow(/another master key/);
  });

  it('refuses an envelope whose master key id was forged', async () => {
    const vault = vaultWith();
    const sealed = await vaultWith().seal({ apiKey: 'sk-forged-0123456789', region: null }, ID);
    await expect(vault.open({ ...sealed, masterKeyId: vault.masterKeyId }, ID)).rejects.toThrow(KeyVaultError);
  });

  it('refuses a truncated envelope', async () => {
    const vault = vaultWith();
    const sealed = await vault.seal({ apiKey: 'sk-short-0123456789', region: null }, ID);
    await expect(vault.open({ ...sealed, keyCiphertext: sealed.keyCiphertext.subarray(0, 10) }, ID)).rejects.toThrow(KeyVaultError);
  });
});

describe('sealSecret and openSecret', () => {
  it('seal any secret text bound to its purpose and id, never opening as another', async () => {
    const vault = vaultWith();
    const sealed = await vault.sealSecret('{"signing_secret":"whsec_1"}', 'destination', 'id-1');
    expect(sealed.keyCiphertext.toString('latin1')).not.toContain('whsec_1');
    expect(vault.openSecret(sealed, 'destination', 'id-1')).toBe('{"signing_secret":"whsec_1"}');
    expect(() => vault.openSecret(sealed, 'destination', 'id-2')).toThrow('envelope failed authentication');
    expect(() => vault.openSecret(sealed, 'other', 'id-1')).toThrow('envelope failed authentication');
    await expect(vault.open(sealed, 'id-1')).rejects.toThrow('envelope failed authentication');
    await expect(vault.sealSecret('x', 'byok', 'id-1')).rejects.toThrow('the byok purpose belongs to provider keys');
  });
});
