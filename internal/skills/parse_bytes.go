package skills

// Parse reads the bytes of one skill file exactly as Load reads a file on
// disk, for a caller holding a skill that is not on disk yet: the registry
// checks a fetched skill with it before installing anything. The result
// has no Origin or Path; the caller compares Name with the name it expects.
func Parse(data []byte) (Skill, error) {
	doc, err := parseDocument(data)
	if err != nil {
		return Skill{}, err
	}
	return Skill{Name: doc.name, Description: doc.description, Body: doc.body, Extra: doc.extra}, nil
}
