// The Memory view, as views/registry.ts lists it: the hybrid search with
// "why this result" and bridges, and consolidation's run log.

import type { ViewSpec } from '../views/views.svelte';
import { sessionIntake } from '../import/imports.svelte';
import MemoryView from './MemoryView.svelte';
import RunLog from './RunLog.svelte';
import VectorLine from './VectorLine.svelte';
import { memory } from './memory.svelte';

export const memoryView: ViewSpec = {
  name: 'memory',
  label: 'Memory',
  key: 'm',
  title: 'Memory: hybrid search and consolidation (M)',
  testid: 'view-memory',
  side: RunLog,
  main: MemoryView,
  status: VectorLine,
  intake: sessionIntake,
  onshow: () => void memory.start(),
};
