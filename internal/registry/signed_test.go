package registry

// ManifestSignedBytes is what a plugin manifest's signature covers: the
// prefix, then the RFC 8785 (JCS) canonical JSON of the manifest with its
// top-level "signer" and "signature" members removed. Verification
// computes it inside; the tests sign fixtures with it.
func ManifestSignedBytes(manifest []byte) ([]byte, error) {
	m, err := splitManifest(manifest)
	if err != nil {
		return nil, err
	}
	return append([]byte(SignaturePrefix), m.canonical...), nil
}

// OriginalSignedBytes is what a plugin manifest's signature covered in
// shiro-neko's TypeScript original: JSON.stringify of the manifest
// without "signer" and "signature", its keys sorted recursively. For the
// JSON a manifest holds, that is exactly the JCS canonical form (RFC 8785
// was written to match JSON.stringify's numbers and strings, and sorts
// keys in the same UTF-16 order), only without SignaturePrefix. The tests
// hold entries signed for the original to verifying under the same key.
func OriginalSignedBytes(manifest []byte) ([]byte, error) {
	m, err := splitManifest(manifest)
	return m.canonical, err
}
