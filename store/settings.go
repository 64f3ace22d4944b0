package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Settings: what the person chose once per library, as JSON values by key
// (the settings table; schema migrations/0013_settings.sql). What the values
// mean is the use cases'; API keys are never here (Secrets).

// Setting returns the JSON value stored under key. It returns ErrNotFound
// (wrapped) when none is.
func (s *Store) Setting(ctx context.Context, key string) ([]byte, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: setting %s", ErrNotFound, key)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read setting %s: %w", key, err)
	}
	return []byte(v), nil
}

// PutSetting stores value, JSON, under key, replacing what was there.
func (s *Store) PutSetting(ctx context.Context, key string, value []byte) error {
	if !json.Valid(value) {
		return fmt.Errorf("store: unable to save setting %s: the value is not JSON", key)
	}
	if _, err := s.execWrite(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		key, string(value), isoTime(time.Now())); err != nil {
		return fmt.Errorf("store: unable to save setting %s: %w", key, err)
	}
	return nil
}

// ConfigDir is the library's folder of side files, "<library>.config": the
// secrets file (Secrets), and before migration 0013 the settings files.
func (s *Store) ConfigDir() string { return s.path + ".config" }

// The side files Rhizome kept settings in before migration 0013, in
// ConfigDir: llm.json held the model setting (the llm.Config, its API key
// redacted), settings.json {"version": 1, "activePaths": {treeId:
// {"nodeId", "versions"}}}.
const (
	legacyLLMFile      = "llm.json"
	legacySettingsFile = "settings.json"
)

// LLMSettingKey is the key of the model setting (the llm.Config without its
// API key) in the settings table.
const LLMSettingKey = "llm"

// SummarySettingKey is the key of how summaries are made (offline or with a
// model, the summary model without its API key, the worker's concurrency,
// the loom tree trigger) in the settings table.
const SummarySettingKey = "summaries"

// migrateSideFiles moves the settings side files of an older Rhizome into
// the library, once: llm.json becomes the LLMSettingKey setting as it is (a
// damaged one too: reading the setting then says so), and each
// active path of settings.json its tree's row in loom_active_paths (those of
// trees the library no longer holds are dropped). It writes in one
// transaction, never over a value the library already holds (another
// process may have moved them first), and deletes each file once it is
// committed. A settings.json that is not valid JSON is left where it is,
// untouched, and the library opens without it. Without side files it only
// looks for them.
func (s *Store) migrateSideFiles(ctx context.Context) error {
	llmPath := filepath.Join(s.ConfigDir(), legacyLLMFile)
	settingsPath := filepath.Join(s.ConfigDir(), legacySettingsFile)
	llmJSON, err := readSideFile(llmPath)
	if err != nil {
		return err
	}
	settingsJSON, err := readSideFile(settingsPath)
	if err != nil {
		return err
	}
	if llmJSON == nil && settingsJSON == nil {
		return nil
	}
	var doc struct {
		ActivePaths map[string]struct {
			NodeID   string            `json:"nodeId"`
			Versions map[string]string `json:"versions"`
		} `json:"activePaths"`
	}
	if settingsJSON != nil && json.Unmarshal(settingsJSON, &doc) != nil {
		settingsJSON, settingsPath = nil, "" // not ours to read: leave it
	}
	if llmJSON == nil && settingsJSON == nil {
		return nil
	}
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to begin moving the settings files into the library: %w", err)
	}
	defer tx.Rollback()
	now := isoTime(time.Now())
	if llmJSON != nil {
		if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (key) DO NOTHING`, LLMSettingKey, string(llmJSON), now); err != nil {
			return fmt.Errorf("store: unable to move %s into the library: %w", llmPath, err)
		}
	}
	for treeID, ap := range doc.ActivePaths {
		if ap.NodeID == "" {
			continue
		}
		versions, err := json.Marshal(ap.Versions)
		if err != nil || ap.Versions == nil {
			versions = []byte("{}")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO loom_active_paths (tree_id, node_id, versions, updated_at)
			SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM loom_trees WHERE id = ?) ON CONFLICT (tree_id) DO NOTHING`,
			treeID, ap.NodeID, string(versions), now, treeID); err != nil {
			return fmt.Errorf("store: unable to move the active path of loom tree %s from %s into the library: %w", treeID, settingsPath, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to commit the settings files moved into the library: %w", err)
	}
	for _, p := range []string{llmPath, settingsPath} {
		if p == "" {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("store: unable to remove %s, moved into the library: %w", p, err)
		}
	}
	return nil
}

// readSideFile reads the side file at path; nil and no error when it is not
// there.
func readSideFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read %s: %w", path, err)
	}
	return b, nil
}
