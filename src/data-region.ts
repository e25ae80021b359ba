/**
 * The one region type: where a request's data may be processed, as the spec's `DataRegion` names it (the
 * region header, `gateway_metadata.region`, an endpoint's `regions`, a credential's `declared_region`). The
 * runtime lists below are derived from one exhaustive record, so adding a region to the spec fails the
 * typecheck here until it is listed.
 */
import type { DataRegion } from '#src/api-types.ts';

export type { DataRegion };

/** A data-residency region: one with its own regional host (every region but `global`). */
export type ResidencyRegion = Exclude<DataRegion, 'global'>;

// A record, not an array: the compiler then insists on every region and on nothing else.
const REGION_SET: Readonly<Record<DataRegion, true>> = { global: true, us: true, europe: true };

/** Every data region, `global` first. */
export const DATA_REGIONS = Object.keys(REGION_SET) as [DataRegion, ...DataRegion[]];

/** The data-residency regions (`europe`, `us`). */
export const RESIDENCY_REGIONS = DATA_REGIONS.filter((region): region is ResidencyRegion => region !== 'global') as [
  ResidencyRegion,
  ...ResidencyRegion[],
];

/** True when the value names a data region. */
export function isDataRegion(value: unknown): value is DataRegion {
  return typeof value === 'string' && Object.hasOwn(REGION_SET, value);
}

/** True when the value names a data-residency region (`europe` or `us`). */
export function isResidencyRegion(value: unknown): value is ResidencyRegion {
  return isDataRegion(value) && value !== 'global';
}
