/** The one argument helper: what it accepts, the exact words of every refusal, and the help it generates. */
import assert from 'node:assert/strict';
import { helpText, parseCommandArgs, UsageError, usageLine, type CommandSpec, type Flags } from '../../cli/args.js';

const SPEC = {
  name: 'demo',
  summary: 'a command to test the helper with',
  about: 'Reads flags.',
  flags: {
    model: { type: 'string', value: '<name|file>', help: 'the model', required: true },
    journal: { type: 'string', value: '<file|->', help: 'a journal' },
    logs: { type: 'string', value: '<file|->', help: 'a log' },
    loop: { type: 'choice', choices: ['auto', 'sequential', 'phased'], default: 'auto', help: 'the loop', with: 'logs' },
    format: { type: 'choice', choices: ['table', 'json'], default: 'table', help: 'the format' },
    objects: { type: 'integer', value: '<n>', min: 1, default: 20, help: 'objects' },
    duration: { type: 'duration', default: '24h', help: 'how long' },
    strict: { type: 'boolean', help: 'be strict' },
    threshold: { type: 'list', value: '<name=value>', help: 'a threshold' },
  },
  oneOf: [['journal', 'logs']],
  examples: ['reconcile-shadow demo --model m --journal j'],
  exitCodes: ['ok', 'usage'],
} as const satisfies CommandSpec<Flags>;

const problems = (argv: string[]): readonly string[] => {
  try {
    parseCommandArgs(SPEC, argv);
  } catch (e) {
    if (e instanceof UsageError) return e.problems;
    throw e;
  }
  assert.fail(`${argv.join(' ')} was accepted`);
};

describe('cli/args: one declaration, parsed', () => {
  it('reads every type, with defaults for what is not given', () => {
    const parsed = parseCommandArgs(SPEC, [
      '--model',
      'm',
      '--logs=-',
      '--loop',
      'phased',
      '--objects',
      '5',
      '--duration',
      '1h30m',
      '--strict',
      '--threshold',
      'a=1',
      '--threshold=b=2',
    ]);
    assert.deepEqual(parsed, {
      help: false,
      values: {
        model: 'm',
        journal: undefined,
        logs: '-',
        loop: 'phased',
        format: 'table',
        objects: 5,
        duration: 5_400_000,
        strict: true,
        threshold: ['a=1', 'b=2'],
      },
      positionals: [],
    });
  });

  it('-h or --help anywhere asks for the help, even among bad flags', () => {
    assert.deepEqual(parseCommandArgs(SPEC, ['--bogus', '-h']), { help: true });
    assert.deepEqual(parseCommandArgs(SPEC, ['--format', 'yaml', '--help']), { help: true });
  });

  it('names the flag, the value and what is accepted, every problem at once', () => {
    assert.deepEqual(problems(['--journal', 'j', '--format', 'yaml', '--objects', 'abc', '--duration', '24x']), [
      '--model <name|file> is required: the model',
      '--format "yaml": expected one of table, json',
      '--objects "abc": expected a whole number of at least 1',
      '--duration "24x": expected a duration such as 90s, 10m, 24h or 1h30m (units ms, s, m, h, d)',
    ]);
    assert.deepEqual(problems(['--model', 'm', '--journal', 'j', '--objects', '0', '--duration', '0s']), [
      '--objects "0": expected a whole number of at least 1',
      '--duration "0s": expected a duration such as 90s, 10m, 24h or 1h30m (units ms, s, m, h, d)',
    ]);
  });

  it('refuses unknown flags (suggesting a near one), a missing value, a value on a boolean, a flag twice, stray arguments', () => {
    assert.deepEqual(problems(['--model', 'm', '--journal', 'j', '--formt', 'json', '-x', '--strict=yes', 'extra']), [
      'unknown flag --formt (did you mean --format?)',
      'unknown flag -x',
      '--strict takes no value (got "yes")',
      'unexpected argument "json": demo takes only flags',
    ]);
    assert.deepEqual(problems(['--model', '--journal', 'j']), ['--model needs a value: <name|file>', '--model <name|file> is required: the model']);
    assert.deepEqual(problems(['--model', 'm', '--journal', 'j', '--format', 'json', '--format', 'table']), [
      '--format is given twice (json and table); give it once',
    ]);
  });

  it('exactly one of a group, and a flag that needs another', () => {
    assert.deepEqual(problems(['--model', 'm']), ['give one of --journal or --logs']);
    assert.deepEqual(problems(['--model', 'm', '--journal', 'j', '--logs', 'l']), ['give only one of --journal or --logs (got --journal and --logs)']);
    assert.deepEqual(problems(['--model', 'm', '--journal', 'j', '--loop', 'phased']), ['--loop applies only together with --logs']);
  });

  it('takes "-" as a value (stdin) and everything after -- as arguments', () => {
    const parsed = parseCommandArgs({ ...SPEC, positionals: { value: '<file>', help: 'files', min: 1 } }, [
      '--model',
      'm',
      '--journal',
      '-',
      '--',
      '--not-a-flag',
    ]);
    assert.deepEqual(parsed.help ? undefined : [parsed.values.journal, parsed.positionals], ['-', ['--not-a-flag']]);
  });

  it('generates the usage line and the help from the same declaration', () => {
    assert.equal(
      usageLine(SPEC),
      'reconcile-shadow demo --model <name|file> (--journal <file|-> | --logs <file|->) [--loop auto|sequential|phased] [--format table|json] [--objects <n>] [--duration <duration>] [--strict] [--threshold <name=value>]...',
    );
    const help = helpText(SPEC).split('\n');
    assert.equal(help[0], 'reconcile-shadow demo: a command to test the helper with');
    assert.ok(help.includes('  --loop auto|sequential|phased'), help.join('\n'));
    assert.ok(help.includes('                                the loop (default: auto; with --logs only)'), help.join('\n'));
    assert.ok(help.includes('  --objects <n>                 objects (default: 20)'), help.join('\n'));
    assert.ok(help.includes('  --threshold <name=value>      a threshold (repeatable)'), help.join('\n'));
    assert.deepEqual(help.slice(-7), [
      'examples:',
      '  reconcile-shadow demo --model m --journal j',
      '',
      'exit codes:',
      '  0  done',
      '  2  bad arguments: each problem is named on stderr',
      '',
    ]);
  });
});
