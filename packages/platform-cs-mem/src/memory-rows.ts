// The rows of the memory tables as SQLite returns them, and how they become model objects.
import type { MacroParam, MacroStep, MemoryMacro, MemoryNode } from './memory-model.js';

export interface NodeRow {
  seq: number;
  id: string;
  text: string;
  role: string;
  weight: number;
  aliases: string;
  created_at: number;
  updated_at: number;
}

export interface EpisodeRow {
  id: string;
  session_id: string;
  summary: string;
  tool_calls: string;
  started_at: number;
  ended_at: number;
}

export interface MacroRow {
  seq: number;
  name: string;
  description: string;
  params: string;
  steps: string;
  success_count: number;
  failure_count: number;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
}

export function nodeFromRow(row: NodeRow): MemoryNode {
  return {
    id: row.id,
    text: row.text,
    role: row.role,
    weight: row.weight,
    aliases: row.aliases === '' ? [] : row.aliases.split(' '),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function macroFromRow(row: MacroRow): MemoryMacro {
  return {
    name: row.name,
    description: row.description,
    params: JSON.parse(row.params) as MacroParam[],
    steps: JSON.parse(row.steps) as MacroStep[],
    successCount: row.success_count,
    failureCount: row.failure_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastUsedAt: row.last_used_at ?? undefined,
  };
}
