import { describe, expect, test } from 'vitest';
import { emptyFields, KINDS, missing, toFields } from './fields';

describe('record form fields', () => {
  test('every kind has a required first field', () => {
    for (const k of KINDS) expect(missing(k, emptyFields(k))).not.toBeNull();
  });
  test('lists split by line, empty values left out, choices kept', () => {
    const v = { ...emptyFields('decision'), description: ' Use SQLite ', optionsConsidered: 'Postgres\n\n Redis \n' };
    expect(toFields('decision', v)).toEqual({ description: 'Use SQLite', optionsConsidered: ['Postgres', 'Redis'] });
    expect(toFields('projectFact', { ...emptyFields('projectFact'), fact: 'Tabs' })).toEqual({ fact: 'Tabs', category: 'convention' });
    expect(missing('exception', { ruleBroken: 'x', justification: ' ' })?.key).toBe('justification');
  });
});
