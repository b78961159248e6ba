import { strict as assert } from 'node:assert';
import { GoTemplate, TemplateError } from '../../../analyzer/recreations/go-template.js';
import { formatGoTime } from '../../../analyzer/recreations/go-time.js';

const NOW = new Date('2026-11-02T10:04:05.120Z');
const render = (t: string, data: Record<string, unknown>): ReturnType<GoTemplate['renderResult']> => GoTemplate.parse(t).renderResult(data, () => NOW);

describe('Go templates as the adapter renders them (hyperfleet-adapter pkg/utils/template.go RenderTemplate)', () => {
  it('renders variables and nested paths; a missing key fails (missingkey=error); text without {{ is as is (template_test.go TestRenderTemplate)', () => {
    assert.deepEqual(render('Hello {{ .name }}!', { name: 'World' }), { ok: true, text: 'Hello World!' });
    assert.deepEqual(render('{{ .cluster.id }}', { cluster: { id: 'test-123' } }), { ok: true, text: 'test-123' });
    assert.deepEqual(render('plain {text}', {}), { ok: true, text: 'plain {text}' });
    assert.deepEqual(render('{{ .missing }}', {}), { ok: false, message: 'failed to execute template: map has no entry for key "missing"' });
    // A key that is there with no value prints as Go prints a nil interface.
    assert.deepEqual(render('{{ .none }}', { none: null }), { ok: true, text: '<no value>' });
  });

  it("the adapter's functions and the builtins, values printed as Go's %v prints them", () => {
    const data = { id: 'ABC-1', gen: 5n, tags: ['a', 'b'], spec: { nodes: [1n, 2n], region: 'eu' }, empty: '' };
    const cases: [string, string][] = [
      ['{{ .id | lower }}/{{ .id | upper }}/{{ title "hello world" }}', 'abc-1/ABC-1/Hello World'],
      // The Go functions themselves (strings.TrimPrefix(s, prefix), strings.ReplaceAll(s, old, new)): the string comes first,
      // so a piped value is the last argument, not the string, unlike sprig's.
      ['{{ trimPrefix .id "ABC-" }} {{ "-1" | trimSuffix .id }} {{ replace .id "-" "_" }} {{ trim "  x " }} {{ trimPrefix "ABC-" .id }}', '1 ABC ABC_1 x ABC-'],
      ['{{ default "none" .empty }} {{ default "none" .id }} {{ quote .id }}', 'none ABC-1 "ABC-1"'],
      ['{{ int "7" }} {{ int64 .gen }} {{ float "1.5" }} {{ string .gen }}', '7 5 1.5 5'],
      ['{{ now | date "2006-01-02T15:04:05Z07:00" }} {{ dateFormat "Jan 2 15:04" now }}', '2026-11-02T10:04:05Z Nov 2 10:04'],
      ['{{ .spec }} {{ .tags }} {{ len .tags }} {{ index .tags 1 }}', 'map[nodes:[1 2] region:eu] [a b] 2 b'],
      ['{{ if eq .gen 5 }}five{{ else if gt .gen 5 }}more{{ else }}less{{ end }}', 'five'],
      ['{{- range $i, $t := .tags }} {{ $i }}={{ $t }}{{ end }} | {{ with .spec }}{{ .region }}{{ end }}', ' 0=a 1=b | eu'],
      ['{{ if and (hasPrefix .id "ABC") (not (contains .id "x")) }}yes{{ end }} {{ printf "%s-%d" .id .gen }}', 'yes ABC-1-5'],
      ['{{/* a comment */}}x  {{- " y" -}}  z', 'x yz'],
    ];
    for (const [t, want] of cases) assert.deepEqual(render(t, data), { ok: true, text: want }, t);
    assert.deepEqual(render('{{ upper .gen }}', data), {
      ok: false,
      message: 'failed to execute template: error calling upper: wrong type for value; expected string; got int64',
    });
  });

  it('refuses what Go refuses to parse: unknown functions, unclosed actions and blocks', () => {
    for (const [t, message] of [
      ['{{ nope .x }}', 'function "nope" not defined'],
      ['{{ .x ', 'unclosed action'],
      ['{{ if .x }}a', 'unexpected EOF'],
    ] as const) {
      assert.throws(
        () => GoTemplate.parse(t),
        (e: unknown) => e instanceof TemplateError && e.message.startsWith(message),
        t,
      );
    }
  });

  it('matches plain substitutions backwards, so objects are tied to the params they were made from; other templates do not', () => {
    const t = GoTemplate.parse('{{ .clusterId | lower }}-{{ .clusterId }}');
    assert.deepEqual(t.match('abc-ABC'), { clusterId: 'ABC' });
    assert.equal(t.match('abc-XYZ'), undefined);
    assert.deepEqual([t.matchable, t.paths], [true, [['clusterId'], ['clusterId']]]);
    const structural = GoTemplate.parse('{{ if .a }}{{ .b.c }}{{ end }}');
    assert.deepEqual([structural.matchable, structural.match('x'), structural.paths], [false, undefined, [['a'], ['b', 'c']]]);
  });

  it("writes Go's time layouts (time.Format)", () => {
    assert.equal(formatGoTime('Mon, 02 Jan 2006 15:04:05 MST .000 3PM', NOW), 'Mon, 02 Nov 2026 10:04:05 UTC .120 10AM');
  });
});
