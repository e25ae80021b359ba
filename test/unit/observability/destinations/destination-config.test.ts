/** The `observability:` section of the configuration file: its destinations, and its mistakes by path. */
import { describe, expect, it } from 'vitest';
import { parseCatalogConfig } from '#src/catalog/index.ts';
import { fileDestinations } from '#src/observability/destinations/destination-config.ts';

const parse = (yaml: string, env: NodeJS.ProcessEnv = {}) => parseCatalogConfig(yaml, 'switchboard.yaml', env);

describe('observability in the configuration file', () => {
  it('reads destinations with secrets from the environment, for every workspace or the listed ones', () => {
    const config = parse(
      [
        'observability:',
        '  destinations:',
        '    - { name: collector, kind: otlp, endpoint: "http://127.0.0.1:4318/v1/traces", protocol: http/json, headers: { Authorization: "Bearer ${OTEL_TOKEN}" } }',
        '    - name: lf',
        '      kind: langfuse',
        '      endpoint: https://cloud.langfuse.com',
        '      public_key: pk-lf-1',
        '      secret_key: ${LF_SECRET}',
        '      sampling_rate: 0.5',
        '      include_content: true',
        '      workspaces: [26702b5a-4f17-4a26-bf0b-aeaaaed85465]',
      ].join('\n'),
      { OTEL_TOKEN: 'tok-1', LF_SECRET: 'sk-lf-2' },
    );
    const [collector, langfuse] = fileDestinations(config.observability);
    expect(collector).toMatchObject({ workspaces: null, destination: { id: 'config:collector', kind: 'otlp', protocol: 'http/json', samplingRate: 1, includeContent: false } });
    expect(collector?.destination.secrets.headers.authorization?.reveal()).toBe('Bearer tok-1');
    expect(String(collector?.destination.secrets.headers.authorization)).toBe('[redacted]');
    expect(langfuse).toMatchObject({ workspaces: ['26702b5a-4f17-4a26-bf0b-aeaaaed85465'], destination: { kind: 'langfuse', publicKey: 'pk-lf-1', samplingRate: 0.5, includeContent: true } });
    expect(langfuse?.destination.secrets.secretKey?.reveal()).toBe('sk-lf-2');
  });

  it.each([
    ['a webhook without its secret', '    - { name: h, kind: webhook, endpoint: "https://h.example.com" }', 'observability.destinations[0]: signing_secret is required for a webhook destination'],
    ['a rate above 1', '    - { name: c, kind: otlp, endpoint: "https://c.example.com", sampling_rate: 2 }', 'observability.destinations[0].sampling_rate: must be a number from 0 to 1, got 2'],
    ['an unknown kind', '    - { name: c, kind: smtp, endpoint: "https://c.example.com" }', 'observability.destinations[0].kind: must be one of otlp, langfuse, webhook'],
    ['an unknown field', '    - { name: c, kind: otlp, endpoint: "https://c.example.com", token: x }', 'observability.destinations[0].token: is not a known field'],
    ['a bad workspace id', '    - { name: c, kind: otlp, endpoint: "https://c.example.com", workspaces: [acme] }', 'observability.destinations[0].workspaces[0]: must be a workspace UUID'],
    ['a repeated name', '    - { name: c, kind: otlp, endpoint: "https://c.example.com" }\n    - { name: c, kind: otlp, endpoint: "https://d.example.com" }', 'observability.destinations[1].name: repeats the name "c"'],
  ])('names %s by its path', (_label, entry, message) => {
    const load = () => {
      const config = parse(`observability:\n  destinations:\n${entry}\n`);
      const problems: { path: string; message: string }[] = [];
      fileDestinations(config.observability, problems);
      if (problems.length > 0) throw new Error(problems.map((problem) => `${problem.path}: ${problem.message}`).join('; '));
    };
    expect(load).toThrow(message);
  });
});
