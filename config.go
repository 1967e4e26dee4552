package lore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/packet/pack"
	"github.com/lorekeep/lore/store"
)

// Config is a store's lore.json. Every field is optional; a missing file
// means all defaults.
type Config struct {
	// Encoding is the token encoding counted at write time and used for
	// packets: "o200k_base" (default), "cl100k_base" or "estimate".
	Encoding string `json:"encoding,omitempty"`
	// HistoryCap is how many versions are kept per record (default 20).
	HistoryCap int `json:"history_cap,omitempty"`
	// Scope is the scope of a packet given no budget, scope or model
	// (default "scene", 8,000 tokens).
	Scope string `json:"scope,omitempty"`
	// Scopes overrides or adds budget scope names (scene, chapter, arc, novel).
	Scopes map[string]int `json:"scopes,omitempty"`
	// Packet configures profiles, rank tables and overflow actions per
	// kind; see packet.Config.
	Packet packet.Config `json:"packet,omitzero"`
	// Fusion sets how a search with a query vector fuses the words'
	// ranking with the vectors' (see FusionConfig).
	Fusion FusionConfig `json:"fusion,omitzero"`
	// Pack configures `lore pack`: categories and their priority.
	Pack PackConfig `json:"pack,omitzero"`
	// Etcd, in a store folder's lore.json, keeps that store on an etcd
	// cluster: the folder then holds this file and the local index, and
	// --store DIR (or the .lore/ found by discovery) opens the cluster.
	// Given with an etcd store URL, it supplies TLS files and auth.
	Etcd *EtcdConfig `json:"etcd,omitempty"`
}

// EtcdConfig is the `etcd` section of lore.json.
type EtcdConfig struct {
	// URL is the store URL, etcd://host:port,host:port/prefix.
	URL string `json:"url,omitempty"`
	// CAFile, CertFile and KeyFile are PEM files for TLS: the CA that
	// signed the members' certificates, and a client certificate and key
	// when the members ask for one.
	CAFile   string `json:"ca_file,omitempty"`
	CertFile string `json:"cert_file,omitempty"`
	KeyFile  string `json:"key_file,omitempty"`
	// Username logs in to a cluster with auth enabled; the password is
	// read from the environment variable PasswordEnv, never from a file.
	Username    string `json:"username,omitempty"`
	PasswordEnv string `json:"password_env,omitempty"`
}

// checkStoreURL checks the url of lore.json's etcd section: an etcd
// store URL, well formed by the etcd engine's rules where the program
// links the engine (where it does not, opening the store says which
// package to import).
func checkStoreURL(url string) error {
	if !strings.HasPrefix(url, "etcd://") {
		return badvalue.Errorf(url, "%w: store URL %q does not start with etcd://", store.ErrInvalid, url)
	}
	driver, err := store.DriverFor(url)
	if errors.Is(err, store.ErrNoEngine) {
		return nil
	}
	if err != nil {
		return err
	}
	return driver.CheckURL(url)
}

// PackConfig is the `pack` section of lore.json.
type PackConfig struct {
	// Categories maps path patterns to categories, first match wins.
	Categories []pack.Category `json:"categories,omitempty"`
	// Priority lists categories from most to least important.
	Priority []string `json:"priority,omitempty"`
}

// loadStoreConfig reads the lore.json of folder dir (a store's, or a
// store URL's local folder) and makes the counter of its encoding, which
// every open of a store needs.
func loadStoreConfig(dir string) (Config, budget.Counter, error) {
	path := filepath.Join(dir, ConfigFile)
	cfg, err := LoadConfig(path)
	if err != nil {
		return cfg, nil, err
	}
	counter, err := budget.NewCounter(cfg.Encoding)
	if err != nil {
		return cfg, nil, fmt.Errorf("%s: encoding: %w", path, err)
	}
	return cfg, counter, nil
}

// LoadConfig reads a lore.json file. A missing file gives the defaults;
// unknown fields are errors, so a typo does not silently do nothing.
func LoadConfig(path string) (Config, error) {
	var cfg Config
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg.withDefaults(), nil
	}
	if err != nil {
		return cfg, fmt.Errorf("read %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("%s: %v: %w (see README, section Configuration)", path, err, ErrConfig)
	}
	if cfg.HistoryCap < 0 {
		return cfg, fmt.Errorf("%s: history_cap %d: %w (must be 0 for the default, or positive)", path, cfg.HistoryCap, ErrConfig)
	}
	if err := cfg.Packet.Validate(); err != nil {
		return cfg, fmt.Errorf("%s: packet: %v: %w", path, err, ErrConfig)
	}
	if err := cfg.Fusion.validate(); err != nil {
		return cfg, fmt.Errorf("%s: %v: %w", path, err, ErrConfig)
	}
	if cfg.Scope != "" {
		if _, err := scopeTokens(cfg.Scope, cfg.withDefaults().Packet.Scopes); err != nil {
			return cfg, fmt.Errorf("%s: %v: %w", path, err, ErrConfig)
		}
	}
	if e := cfg.Etcd; e != nil {
		if e.URL != "" {
			if err := checkStoreURL(e.URL); err != nil {
				return cfg, fmt.Errorf("%s: etcd.url: %v: %w", path, err, ErrConfig)
			}
		}
		if (e.CertFile == "") != (e.KeyFile == "") {
			return cfg, badvalue.Errorf(e.CertFile, "%s: etcd: cert_file and key_file go together (got %q and %q): %w", path, e.CertFile, e.KeyFile, ErrConfig)
		}
		if (e.Username == "") != (e.PasswordEnv == "") {
			return cfg, badvalue.Errorf(e.Username, "%s: etcd: username and password_env go together (got %q and %q): %w", path, e.Username, e.PasswordEnv, ErrConfig)
		}
	}
	for name, n := range cfg.Scopes {
		if n <= 0 {
			return cfg, badvalue.Errorf(name, "%s: scope %q = %d: %w (must be a positive token count)", path, name, n, ErrConfig)
		}
	}
	return cfg.withDefaults(), nil
}

func (c Config) withDefaults() Config {
	if c.Encoding == "" {
		c.Encoding = "o200k_base"
	}
	// One set of scope names: lore.json's top-level scopes also size the
	// packet's split proposals.
	if len(c.Scopes) > 0 {
		merged := maps.Clone(c.Packet.Scopes)
		if merged == nil {
			merged = map[string]int{}
		}
		for k, v := range c.Scopes {
			if _, ok := merged[k]; !ok {
				merged[k] = v
			}
		}
		c.Packet.Scopes = merged
	}
	return c
}
