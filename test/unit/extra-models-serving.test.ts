import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRegistry } from '../../engine/registry.ts';
import { ExtraModelError, type ExtraModelDeclaration } from '../../inference/extra-models.ts';
import { declaredExtraModels, extraCalibrations, extraFingerprint } from '../../server/extra-models.ts';
import { createLogger } from '../../lib/logger.ts';

// Folders that pass readExtraModels' checks (the files' bytes do not matter before a thread loads them).
function folder(declarations: Partial<ExtraModelDeclaration>[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cf-extra-serving-'));
  const models = declarations.map((d, i) => {
    const name = d.name ?? `m${i}`;
    mkdirSync(path.join(dir, name));
    const token = d.task === 'token-classification';
    const files: Record<string, string> = {
      'model.onnx': `not a model ${name}`,
      'tokenizer.json': '{}',
      'config.json': JSON.stringify({
        id2label: token ? { 0: 'O', 1: 'B-PER', 2: 'I-PER' } : { 0: 'SAFE', 1: 'INJECTION' },
        max_position_embeddings: 128,
        model_type: 'bert',
      }),
    };
    const sha256: Record<string, string> = {};
    for (const [f, body] of Object.entries(files)) {
      writeFileSync(path.join(dir, name, f), body);
      sha256[f] = createHash('sha256').update(body).digest('hex');
    }
    return {
      name,
      version: '1',
      detector: 'prompt_injection',
      task: 'text-classification',
      sha256,
      ...(token ? { entities: { PER: 'PERSON' } } : { positive_labels: ['INJECTION'] }),
      ...d,
    };
  });
  writeFileSync(path.join(dir, 'models.json'), JSON.stringify({ models }));
  return dir;
}

describe('extra models at start-up', () => {
  it('refuses an unknown surface, two text classifiers for one detector, and a built-in model name', () => {
    const dir = folder([{ name: 'a', surfaces: ['user_message', 'chat'] }, { name: 'b' }]);
    expect(() => declaredExtraModels(dir)).toThrow(ExtraModelError);
    expect(() => declaredExtraModels(dir)).toThrow(
      /a: surfaces: chat not one of[\s\S]*b: detector prompt_injection already stacks a/,
    );
    expect(() => declaredExtraModels(folder([{ name: 'pi-accurate' }]))).toThrow(/one of the built-in models/);
  });

  it('the catalog says an uncalibrated model is not used, and why, without server paths; a raw-scores run does not stack', () => {
    const dir = folder([
      { name: 'guard', version: '2.0' },
      { name: 'names', detector: 'pii', task: 'token-classification' },
    ]);
    const models = declaredExtraModels(dir);
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream);
    const calibrations = extraCalibrations(models, logger);
    expect(lines.join('')).toMatch(/extra model not calibrated/);
    const registry = buildRegistry({ models: null, loadedModels: [], extra: { models, calibrations } });
    const pi = registry.get('prompt_injection')!.model;
    expect(pi).toMatch(/; guard@2\.0 \(not calibrated: run npm run models:calibrate -- --model guard\)$/);
    expect(pi).not.toContain(dir);
    expect(registry.get('pii')!.model).toMatch(/names@1 \(entities: accurate, auto; not loaded: scans fall back\)$/);
    expect(extraFingerprint(models, calibrations)).toMatch(/^[\w-]{16}$/);
    expect(extraFingerprint([], calibrations)).toBe('');
  });
});
