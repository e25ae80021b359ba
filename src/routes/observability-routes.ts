/**
 * Binds every observability operation (generation records, workspace settings, broadcast destinations,
 * metrics), so the route index needs one line for them.
 */
import type { Router } from 'express';
import { bindGetGenerationsRoute, type GenerationRouteDeps } from '#src/routes/get-generations.ts';
import { bindGetGenerationByIdRoute } from '#src/routes/get-generation-by-id.ts';
import { bindGetWorkspaceSettingsRoute, type WorkspaceSettingsRouteDeps } from '#src/routes/get-workspace-settings.ts';
import { bindPatchWorkspaceSettingsRoute } from '#src/routes/patch-workspace-settings.ts';
import { bindGetObservabilityDestinationsRoute, type DestinationRouteDeps } from '#src/routes/get-observability-destinations.ts';
import { bindPostObservabilityDestinationsRoute } from '#src/routes/post-observability-destinations.ts';
import { bindGetObservabilityDestinationByIdRoute } from '#src/routes/get-observability-destination-by-id.ts';
import { bindPatchObservabilityDestinationByIdRoute } from '#src/routes/patch-observability-destination-by-id.ts';
import { bindDeleteObservabilityDestinationByIdRoute } from '#src/routes/delete-observability-destination-by-id.ts';
import { bindGetMetricsRoute, type MetricsRouteDeps } from '#src/routes/get-metrics.ts';

/** What the observability routes need. */
export interface ObservabilityRouteDeps extends GenerationRouteDeps, WorkspaceSettingsRouteDeps, DestinationRouteDeps, MetricsRouteDeps {}

/** Binds `/generations`, `/workspace/settings`, `/observability/destinations` and `/metrics`. */
export function bindObservabilityRoutes(router: Router, deps: ObservabilityRouteDeps): void {
  bindGetGenerationsRoute(router, deps);
  bindGetGenerationByIdRoute(router, deps);
  bindGetWorkspaceSettingsRoute(router, deps);
  bindPatchWorkspaceSettingsRoute(router, deps);
  bindGetObservabilityDestinationsRoute(router, deps);
  bindPostObservabilityDestinationsRoute(router, deps);
  bindGetObservabilityDestinationByIdRoute(router, deps);
  bindPatchObservabilityDestinationByIdRoute(router, deps);
  bindDeleteObservabilityDestinationByIdRoute(router, deps);
  bindGetMetricsRoute(router, deps);
}
