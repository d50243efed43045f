package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ModelEntry is one member of the `models` object: a model the catalogue
// lacks, or what to change of one it has. Prices are US dollars per
// million tokens; a nil price keeps the catalogue's.
type ModelEntry struct {
	ContextWindow int      `json:"contextWindow,omitempty"`
	MaxOutput     int      `json:"maxOutput,omitempty"`
	Input         *float64 `json:"input,omitempty"`
	Output        *float64 `json:"output,omitempty"`
	CacheRead     *float64 `json:"cacheRead,omitempty"`
	CacheWrite    *float64 `json:"cacheWrite,omitempty"`
	// Vision says whether the model reads images; unset keeps the
	// catalogue's answer.
	Vision *bool `json:"vision,omitempty"`
}

// modelEntryKeys are the fields of a models entry, for the error that
// names a misspelt one.
var modelEntryKeys = []string{"contextWindow", "maxOutput", "input", "output", "cacheRead", "cacheWrite", "vision"}

// checkCost validates the spend and step keys of a parsed file.
func (f File) checkCost(name string) error {
	for key, v := range map[string]*float64{"maxSpendUsd": f.MaxSpendUSD, "maxSpendPerTurn": f.MaxSpendPerTurn} {
		if v != nil && *v <= 0 {
			return fmt.Errorf("%s: field %q must be a positive number of US dollars (remove it for no ceiling)", name, key)
		}
	}
	if f.MaxSteps != nil && (*f.MaxSteps < 1 || *f.MaxSteps > 1000) {
		return fmt.Errorf("%s: field \"maxSteps\" must be between 1 and 1000", name)
	}
	return nil
}

// checkModels validates the raw `models` member before the file is
// decoded, strictly, so that a misspelt price ("imput") is an error
// rather than a model with no price, and errors name the model.
func checkModels(name string, models json.RawMessage) error {
	if len(models) == 0 {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(models, &raw); err != nil {
		return fmt.Errorf("%s: field \"models\" should be an object of model ids", name)
	}
	ids := make([]string, 0, len(raw))
	for id := range raw {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := checkModelEntry(raw[id]); err != nil {
			return fmt.Errorf("%s: field \"models.%s\": %w", name, id, err)
		}
	}
	return nil
}

func checkModelEntry(data json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var e ModelEntry
	if err := dec.Decode(&e); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%v (the fields are %v; prices are US dollars per million tokens)", err, modelEntryKeys)
	}
	if e.ContextWindow < 0 || e.MaxOutput < 0 {
		return errors.New("contextWindow and maxOutput must be positive token counts")
	}
	for key, v := range map[string]*float64{"input": e.Input, "output": e.Output, "cacheRead": e.CacheRead, "cacheWrite": e.CacheWrite} {
		if v != nil && *v < 0 {
			return fmt.Errorf("%q must be a price of zero or more (US dollars per million tokens)", key)
		}
	}
	return nil
}

// applyCost takes the spend ceilings, the step cap and the model entries
// from the user's file, and from the project's only ceilings that are
// lower: a cloned repository may spend less, never more, and may not
// reprice models.
func (s *Settings) applyCost(user, project File) {
	if user.MaxSpendUSD != nil {
		s.MaxSpendUSD = *user.MaxSpendUSD
	}
	if user.MaxSpendPerTurn != nil {
		s.MaxSpendPerTurn = *user.MaxSpendPerTurn
	}
	if user.MaxSteps != nil {
		s.MaxSteps = *user.MaxSteps
	}
	s.MaxSpendUSD = lowerCeiling(s.MaxSpendUSD, project.MaxSpendUSD)
	s.MaxSpendPerTurn = lowerCeiling(s.MaxSpendPerTurn, project.MaxSpendPerTurn)
	s.Models = user.Models
	if project.Models != nil || project.MaxSteps != nil {
		s.Warnings = append(s.Warnings, "project config: models and maxSteps can only be set in your own config (~/.shiro-neko/config.json); ignored (a project may lower maxSpendUsd and maxSpendPerTurn)")
	}
}

// lowerCeiling is ceiling (zero: none) tightened by a project's value.
func lowerCeiling(ceiling float64, project *float64) float64 {
	if project == nil || (ceiling > 0 && *project >= ceiling) {
		return ceiling
	}
	return *project
}
