/** The configs the overlays ship are accepted by the sidecar's own config validation. */
import { deepStrictEqual, strictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECREATIONS_SECTION } from '../../analyzer/recreations/config.js';
import { hyperfleetAdapterSidecarConfig } from '../../deploy/sidecar-config.js';
import { packageRoot } from '../../model/package-root.js';
import { YamlSource } from '../../model/yaml-source.js';
import { parseConfig } from '../../sidecar/config.js';
import { check } from '../../sidecar/config-schema.js';

const overlayFile = (dir: string): string => join(packageRoot(), 'deploy', 'overlays', dir, 'shadow.yaml');

describe('deploy: the shipped sidecar configs', () => {
  it('hypershift: passes `reconcile-shadow run` config validation, metrics beyond loopback, OTLP on loopback', () => {
    const file = overlayFile('hypershift');
    const config = parseConfig(readFileSync(file, 'utf8'), file);
    deepStrictEqual(config.models.map((m) => m.name), ['hypershift-hostedcluster']);
    deepStrictEqual(config.listen.metrics, { host: '0.0.0.0', port: 9464 });
    deepStrictEqual(config.sources.otlp?.listen, { host: '127.0.0.1', port: 4318 });
    strictEqual(config.summary.enabled, false);
  });

  it('hyperfleet-adapter: its recreations section passes the recreations schema', () => {
    const file = overlayFile('hyperfleet-adapter');
    const src = new YamlSource(readFileSync(file, 'utf8'), file);
    const section = (src.value as { recreations: unknown }).recreations;
    deepStrictEqual(section, hyperfleetAdapterSidecarConfig().recreations);
    check(src, ['recreations'], section, RECREATIONS_SECTION);
    deepStrictEqual(src.problems, []);
  });
});
