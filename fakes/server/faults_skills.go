package server

import "github.com/mcpconform/mcpconform/fakes/fault"

// Faults and liberties of the skills extension (reference_skills.go),
// observable at 2026-07-28 only. Each is scoped to what only the skills
// scenarios send: the extension's methods, reads of skill:// URIs, and a
// server/discover whose request declares the extension.

var (
	SkillsResourcesUndeclared = &fault.Fault{Name: "skills-resources-undeclared", Versions: modern,
		Description: "server/discover, asked by a client that declares the skills extension, declares the extension but not the resources capability"}
	SkillsSettingsNotObject = &fault.Fault{Name: "skills-settings-not-object", Versions: modern,
		Description: "server/discover, asked by a client that declares the skills extension, declares it as true, not as a settings object"}
	SkillsListUnimplemented = &fault.Fault{Name: "skills-list-unimplemented", Versions: modern,
		Description: "skills/list answers -32601 although the server declares the skills extension"}
	SkillsListNoCacheHints = &fault.Fault{Name: "skills-list-no-cache-hints", Versions: modern,
		Description: "skills/list results carry no ttlMs or cacheScope"}
	SkillsListEntryRepeated = &fault.Fault{Name: "skills-list-entry-repeated", Versions: modern,
		Description: "the second page of skills/list repeats the first page's entry beside its own"}
	SkillsEntryNoResources = &fault.Fault{Name: "skills-entry-no-resources", Versions: modern,
		Description: "the pdf-processing entry has no resources member (neither an array nor \"dynamic\")"}
	SkillsPathNotName = &fault.Fault{Name: "skills-path-not-name", Versions: modern,
		Description: "pdf-processing is served under skill://pdf-tools/, whose final segment is not the skill's name"}
	SkillsNameInvalid = &fault.Fault{Name: "skills-name-invalid", Versions: modern,
		Description: "a skill is named pdf--processing (consecutive hyphens), against the Agent Skills naming rules, its path following"}
	SkillsManifestNoSkillFile = &fault.Fault{Name: "skills-manifest-no-skill-file", Versions: modern,
		Description: "the pdf-processing entry's resources leave out SKILL.md itself"}
	SkillsManifestOutsideSkill = &fault.Fault{Name: "skills-manifest-outside-skill", Versions: modern,
		Description: "the pdf-processing entry's resources list skill://shared/LICENSE.md, outside the skill's directory"}
	SkillsDigestUppercase = &fault.Fault{Name: "skills-digest-uppercase", Versions: modern,
		Description: "the pdf-processing entry's digests are written in uppercase hexadecimal"}
	SkillsSizeMissing = &fault.Fault{Name: "skills-size-missing", Versions: modern,
		Description: "the pdf-processing entry's resources carry no size"}
	SkillsTooManyFiles = &fault.Fault{Name: "skills-too-many-files", Versions: modern,
		Description: "the pdf-processing entry's manifest lists 513 files, beyond the 512 a host must accept"}
	SkillsTooLarge = &fault.Fault{Name: "skills-too-large", Versions: modern,
		Description: "the pdf-processing entry's manifest lists a file of 16 MiB and one byte, beyond the 16 MiB a host must accept"}
	SkillsNamesCollide = &fault.Fault{Name: "skills-names-collide", Versions: modern,
		Description: "the second skill is also named pdf-processing, served under skill://acme/billing/pdf-processing/"}
	SkillsMetadataReserved = &fault.Fault{Name: "skills-metadata-reserved", Versions: modern,
		Description: "pdf-processing's frontmatter metadata (file and entry alike) holds io.modelcontextprotocol/version, a reserved key the extension does not define"}
	SkillsAuthorityInvalid = &fault.Fault{Name: "skills-authority-invalid", Versions: modern,
		Description: "the second skill is served under skill://acme^corp/billing/refunds/, whose authority is no RFC 3986 reg-name"}
	SkillsGetUnimplemented = &fault.Fault{Name: "skills-get-unimplemented", Versions: modern,
		Description: "skills/get answers -32601 although the server declares the skills extension",
		Why:         "a method not implemented answers -32601 to every call, so the unknown skill's -32602 is missing too"}
	SkillsGetOtherSkill = &fault.Fault{Name: "skills-get-other-skill", Versions: modern,
		Description: "skills/get answers with the entry of another skill than the one asked for"}
	SkillsGetCursor = &fault.Fault{Name: "skills-get-cursor", Versions: modern,
		Description: "skills/get results carry a nextCursor"}
	SkillsGetNoCacheHints = &fault.Fault{Name: "skills-get-no-cache-hints", Versions: modern,
		Description: "skills/get results carry no ttlMs or cacheScope"}
	SkillsGetUnknownServed = &fault.Fault{Name: "skills-get-unknown-served", Versions: modern,
		Description: "skills/get of a URI that is no skill the server serves answers -32603, not -32602"}
	SkillsSkillFileUnreadable = &fault.Fault{Name: "skills-skill-file-unreadable", Versions: modern,
		Description: "resources/read of the listed skill://pdf-processing/SKILL.md answers -32602"}
	SkillsNoFrontmatter = &fault.Fault{Name: "skills-no-frontmatter", Versions: modern,
		Description: "pdf-processing's SKILL.md opens with its body, no YAML frontmatter (the entry's digest and size follow it)"}
	SkillsFrontmatterDiffers = &fault.Fault{Name: "skills-frontmatter-differs", Versions: modern,
		Description: "the pdf-processing entry's frontmatter has a license field its SKILL.md does not"}
	SkillsDigestStale = &fault.Fault{Name: "skills-digest-stale", Versions: modern,
		Description: "the pdf-processing entry's SKILL.md digest and size are of an older text than the one served"}
	SkillsSkillFileMimeType = &fault.Fault{Name: "skills-skill-file-mimetype", Versions: modern,
		Description: "SKILL.md is read with mimeType text/plain"}
	SkillsMetaUnprefixed = &fault.Fault{Name: "skills-meta-unprefixed", Versions: modern,
		Description: "SKILL.md is read with _meta {\"version\": \"2.1.0\"}, a key without the io.modelcontextprotocol.skills/ prefix"}
	SkillsDirectoryUnimplemented = &fault.Fault{Name: "skills-directory-unimplemented", Versions: modern,
		Description: "resources/directory/read answers -32601 although the server declares directoryRead: true",
		Why:         "a method not implemented answers -32601 to every call, so a file's -32602 is missing too"}
	SkillsDirectoryRecursive = &fault.Fault{Name: "skills-directory-recursive", Versions: modern,
		Description: "resources/directory/read lists every file under the directory, not its direct children"}
	SkillsDirectoryNoMimeType = &fault.Fault{Name: "skills-directory-no-mimetype", Versions: modern,
		Description: "resources/directory/read lists subdirectories with mimeType text/plain, not inode/directory"}
	SkillsDirectoryReadsFile = &fault.Fault{Name: "skills-directory-reads-file", Versions: modern,
		Description: "resources/directory/read of a file's URI answers with an empty listing, not -32602"}

	skillsFaults = fault.Set{SkillsResourcesUndeclared, SkillsSettingsNotObject, SkillsListUnimplemented, SkillsListNoCacheHints, SkillsListEntryRepeated,
		SkillsEntryNoResources, SkillsPathNotName, SkillsNameInvalid, SkillsManifestNoSkillFile, SkillsManifestOutsideSkill,
		SkillsDigestUppercase, SkillsSizeMissing, SkillsTooManyFiles, SkillsTooLarge, SkillsNamesCollide, SkillsMetadataReserved,
		SkillsAuthorityInvalid, SkillsGetUnimplemented, SkillsGetOtherSkill, SkillsGetCursor, SkillsGetNoCacheHints,
		SkillsGetUnknownServed, SkillsSkillFileUnreadable, SkillsNoFrontmatter, SkillsFrontmatterDiffers, SkillsDigestStale,
		SkillsSkillFileMimeType, SkillsMetaUnprefixed, SkillsDirectoryUnimplemented, SkillsDirectoryRecursive, SkillsDirectoryNoMimeType,
		SkillsDirectoryReadsFile}
)

var (
	SkillsNoDirectoryRead = &fault.Fault{Name: "skills-no-directory-read", Liberty: true, Versions: modern,
		Description: "the skills extension is declared as {} (no directoryRead) and resources/directory/read is not served",
		Freedom:     "An empty object indicates support for the extension with no optional features."}
	SkillsListEmpty = &fault.Fault{Name: "skills-list-empty", Liberty: true, Versions: modern,
		Description: "skills/list returns no entries; skills/get still answers for every skill served",
		Freedom:     "A server whose skill catalog is large, generated on demand, or otherwise unenumerable MAY return an empty or partial listing."}
	SkillsDynamic = &fault.Fault{Name: "skills-dynamic", Liberty: true, Versions: modern,
		Description: "the pdf-processing entry's resources are \"dynamic\", with no file manifest",
		Freedom:     "When a skill's content is generated dynamically, such that stable digests cannot be published, the server MUST set resources to the string \"dynamic\" instead of an array."}

	skillsLiberties = fault.Set{SkillsNoDirectoryRead, SkillsListEmpty, SkillsDynamic}
)
