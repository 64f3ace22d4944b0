// What the record form asks for each knowledge kind (ccmemory's fields,
// context-graph-dag.md "Domain 1"; pi-brain's lesson): the field, its label,
// whether it is required, a text area or a choice.

import type { KnowledgeFields, KnowledgeKind } from '../types';

export interface FieldSpec {
  key: keyof KnowledgeFields;
  label: string;
  required?: boolean;
  long?: boolean;
  /** A choice among these values (the first is the default). */
  options?: string[];
  /** A list, one item a line. */
  list?: boolean;
}

export const KIND_LABELS: Record<KnowledgeKind, string> = {
  decision: 'Decision',
  correction: 'Correction',
  exception: 'Exception',
  failedApproach: 'Failed approach',
  insight: 'Insight',
  question: 'Question',
  projectFact: 'Project fact',
  lesson: 'Lesson',
};

export const KINDS = Object.keys(KIND_LABELS) as KnowledgeKind[];

export const FACT_CATEGORIES = ['convention', 'constraint', 'workflow', 'tool', 'pattern', 'environment'];

export const KIND_FIELDS: Record<KnowledgeKind, FieldSpec[]> = {
  decision: [
    { key: 'description', label: 'Decision', required: true },
    { key: 'rationale', label: 'Why', long: true },
    { key: 'optionsConsidered', label: 'Options considered (one a line)', long: true, list: true },
    { key: 'revisitTrigger', label: 'Revisit when' },
  ],
  correction: [
    { key: 'rightBelief', label: 'What is right', required: true },
    { key: 'wrongBelief', label: 'What was believed' },
    { key: 'severity', label: 'Severity', options: ['significant', 'minor', 'critical'] },
  ],
  exception: [
    { key: 'ruleBroken', label: 'Rule broken', required: true },
    { key: 'justification', label: 'Justification', required: true, long: true },
    { key: 'scope', label: 'Scope', options: ['one-time', 'conditional', 'new-precedent'] },
  ],
  failedApproach: [
    { key: 'approach', label: 'Approach', required: true },
    { key: 'outcome', label: 'What happened', required: true, long: true },
    { key: 'lesson', label: 'Lesson' },
  ],
  insight: [
    { key: 'summary', label: 'Insight', required: true },
    { key: 'detail', label: 'Detail', long: true },
    { key: 'implications', label: 'Implications' },
    { key: 'category', label: 'Category', options: ['realization', 'analysis', 'strategy', 'personal', 'synthesis'] },
  ],
  question: [
    { key: 'question', label: 'Question', required: true },
    { key: 'answer', label: 'Answer (empty: an open question)', long: true },
    { key: 'context', label: 'Context' },
  ],
  projectFact: [
    { key: 'fact', label: 'Fact (a rule of the project)', required: true },
    { key: 'category', label: 'Category', options: FACT_CATEGORIES },
    { key: 'context', label: 'Context' },
  ],
  lesson: [
    { key: 'summary', label: 'Lesson', required: true },
    { key: 'details', label: 'Details', long: true },
    { key: 'actionable', label: 'What to do' },
    { key: 'level', label: 'Level', options: ['project', 'task', 'user', 'model', 'tool', 'skill', 'subagent'] },
  ],
};

/** An empty form for kind, choices at their defaults. */
export function emptyFields(kind: KnowledgeKind): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of KIND_FIELDS[kind]) out[f.key] = f.options?.[0] ?? '';
  return out;
}

/** The form's text values as the fields Go takes (lists split by line). */
export function toFields(kind: KnowledgeKind, values: Record<string, string>): KnowledgeFields {
  const out: Record<string, unknown> = {};
  for (const f of KIND_FIELDS[kind]) {
    const v = (values[f.key] ?? '').trim();
    if (!v) continue;
    out[f.key] = f.list ? v.split('\n').map((s) => s.trim()).filter(Boolean) : v;
  }
  return out as KnowledgeFields;
}

/** The first required field left empty, or null. */
export function missing(kind: KnowledgeKind, values: Record<string, string>): FieldSpec | null {
  return KIND_FIELDS[kind].find((f) => f.required && !(values[f.key] ?? '').trim()) ?? null;
}
