package tools

// EditPlusTools returns the edit-plus tools that are not in FileTools:
// apply_patch, move_file and delete_file. (multi_edit and list_dir, also
// in set edit-plus, come with FileTools.) env is the workspace they use
// when a call carries no Env of its own.
func EditPlusTools(env *Env) []Tool {
	return []Tool{
		applyPatchTool{env: env},
		moveFileTool{env: env},
		deleteFileTool{env: env},
	}
}
