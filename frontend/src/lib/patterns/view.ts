// The Patterns view, as views/registry.ts lists it: the dashboard.

import type { ViewSpec } from '../views/views.svelte';
import { sessionIntake } from '../import/imports.svelte';
import DashboardView from './DashboardView.svelte';
import PatternList from './PatternList.svelte';
import PatternsStatus from './PatternsStatus.svelte';
import { patterns } from './patterns.svelte';

export const patternsView: ViewSpec = {
  name: 'patterns',
  label: 'Patterns',
  key: 'u',
  title: 'Patterns dashboard and usage (U)',
  testid: 'view-patterns',
  side: PatternList,
  main: DashboardView,
  status: PatternsStatus,
  intake: sessionIntake,
  onshow: () => void patterns.load(),
};
