/**
 * What the plugins carry through one request, from the hook before routing to the hook after the answer:
 * which plugins are enabled, what was prepared before routing for the attempts (the PDFs read, the output
 * schema), and what each plugin did, for `gateway_metadata.plugins`. Plain data, made once per request.
 */
import type { AutoRouterReport, MessageRequest, PluginReport } from '#src/api-types.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import type { ParsedPdfs } from '#src/plugins/file-parser.ts';
import { noPluginEnabled, type EnabledPlugins } from '#src/plugins/plugin-list.ts';

/** One request's plugin state. */
export interface PluginState {
  readonly enabled: EnabledPlugins;
  /** The PDFs `file-parser` read before routing, for each attempt's choice between text and the PDF. */
  parsedPdfs: ParsedPdfs;
  /** The JSON schema `response-healing` checks the answer against; undefined when the request asks for none. */
  outputSchema: unknown;
  /** Reports of the plugins that ran before routing, in the order they ran. */
  readonly reports: PluginReport[];
  /**
   * The auto-router's choice, from the plan the attempts run (`routedBy`): `switchboard/auto` routes without
   * the plugin listed, so it is reported even when `enabled` holds no plugin.
   */
  autoRouter: AutoRouterReport | null;
  /** Reports of the per-attempt plugins, by the attempt they ran for (the one that answered is reported). */
  readonly attemptReports: Map<Attempt, PluginReport[]>;
  /** The last prompt estimate, reused while the attempts send the same request object. */
  estimate: { request: MessageRequest; tokens: number } | null;
}

const NO_PDFS: ParsedPdfs = new Map();

/** A fresh state for a request with these plugins enabled. */
export function newPluginState(enabled: EnabledPlugins): PluginState {
  return { enabled, parsedPdfs: NO_PDFS, outputSchema: undefined, reports: [], autoRouter: null, attemptReports: new Map(), estimate: null };
}

/** Records the auto-router's choice of the plan the attempts run (a request planned twice reports the last plan). */
export function routedBy(state: PluginState, plan: { autoRouter?: AutoRouterReport }): void {
  state.autoRouter = plan.autoRouter ?? null;
}

/** Whether nothing is to be reported or done after the answer: no plugin enabled and no auto-routing. */
export function nothingAfterAnswer(state: PluginState): boolean {
  return state.autoRouter === null && noPluginEnabled(state.enabled);
}

/**
 * The reports of the request as answered by `attempt`, in the order the plugins applied: before routing, the
 * auto-router's, that attempt's, then the answer's.
 */
export function reportsFor(state: PluginState, attempt: Attempt, answer: readonly PluginReport[] = []): PluginReport[] {
  const routing = state.autoRouter ? [state.autoRouter] : [];
  return [...state.reports, ...routing, ...(state.attemptReports.get(attempt) ?? []), ...answer];
}
