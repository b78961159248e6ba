import { strict as assert } from 'node:assert';
import { GoTemplate } from '../../../analyzer/recreations/go-template.js';

describe('Go templates of task configs', () => {
  it('renders params and paths, and a map or list read by a path as JSON, its CEL integers as numbers', () => {
    const t = GoTemplate.parse('{{ .generation }}-{{ .cluster.spec | upper }}');
    assert.deepEqual(t.paths, [['generation'], ['cluster', 'spec']]);
    assert.equal(t.render({ generation: 3n, cluster: { spec: { nodes: [1n, 2n], region: 'eu' } } }), '3-{"NODES":[1,2],"REGION":"EU"}');
    assert.equal(t.render({ generation: 3n, cluster: {} }), undefined);
  });
});
