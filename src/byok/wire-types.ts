/**
 * Short names for the generated wire types of `/byok` and `/keys`. They belong in src/api-types.ts with the
 * others; until the lead moves them there, this is the one place the long lookups appear for these shapes.
 */
import type { components } from '#generated/api.d.ts';

type Schemas = components['schemas'];

export type ByokCredential = Schemas['ByokCredential'];
export type ByokCredentialCreate = Schemas['ByokCredentialCreate'];
export type ByokCredentialPatch = Schemas['ByokCredentialPatch'];
export type ByokCredentialEnvelope = Schemas['ByokCredentialEnvelope'];
export type ByokCredentialPage = Schemas['ByokCredentialPage'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreate = Schemas['ApiKeyCreate'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type CreatedApiKeyEnvelope = Schemas['CreatedApiKeyEnvelope'];
export type ApiKeyPage = Schemas['ApiKeyPage'];
