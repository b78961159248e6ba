import assert from 'node:assert/strict';
import { isCredentialKey, redactText } from '../../../collector/logs/internal/redact.js';

describe('redaction of credentials in log texts', () => {
  it('recognises credential keys case-insensitively, anywhere in the key, or ending in "key"', () => {
    for (const key of [
      'token',
      'access_token',
      'X-Amz-Security-Token',
      'password',
      'PASSWD',
      'clientSecret',
      'Authorization',
      'credentials',
      'apiKey',
      'ssh_key',
      'key',
      'tlsCert',
      'cookie',
      'sessionId',
    ]) {
      assert.equal(isCredentialKey(key), true, key);
    }
    for (const key of ['name', 'namespace', 'reconcileID', 'controller', 'summary', 'error', 'keyboard']) assert.equal(isCredentialKey(key), false, key);
  });

  it('replaces key=value pairs, embedded JSON pairs, bearer/basic credentials and URL passwords', () => {
    const cases: [string, string][] = [
      ['Get "https://api/v1?access_token=abc123&x=1": dial tcp', 'Get "https://api/v1?access_token=[REDACTED]&x=1": dial tcp'],
      ['password=hunter2 user=bob', 'password=[REDACTED] user=bob'],
      ["apiKey = 'xyz' done", 'apiKey = [REDACTED] done'],
      ['denied: {"kind":"Status","token":"s3cr3t","name":"x"}', 'denied: {"kind":"Status","token":"[REDACTED]","name":"x"}'],
      ['quoted {\\"password\\":\\"hunter2\\",\\"user\\":\\"bob\\"}', 'quoted {\\"password\\":\\"[REDACTED]\\",\\"user\\":\\"bob\\"}'],
      ['{"secret": 12345, "n": 1}', '{"secret": "[REDACTED]", "n": 1}'],
      ['header Authorization: Bearer eyJhbGciOi.abc.def rejected', 'header Authorization: Bearer [REDACTED] rejected'],
      ['basic auth Basic dXNlcjpwYXNz failed', 'basic auth Basic [REDACTED] failed'],
      ['proxy https://bob:hunter2@proxy.local:3128 refused', 'proxy https://bob:[REDACTED]@proxy.local:3128 refused'],
    ];
    for (const [text, expected] of cases) assert.equal(redactText(text), expected);
  });

  it('leaves Go error chains alone, so error formats still match', () => {
    for (const text of [
      'failed to get pull secret: secrets "pull-secret" not found',
      'failed reconciling aescbc active key: secrets "aescbc" not found',
      'audit webhook secret does not contain key webhook-kubeconfig',
      'failed to reconcile controlplane SSHKey secret: boom',
    ]) {
      assert.equal(redactText(text), text);
    }
  });
});
