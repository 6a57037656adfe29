" Minimal PTX syntax for kernlint's PTX split (and *.ptx files).
if exists("b:current_syntax")
  finish
endif

syn match   ptxComment      "//.*$" contains=@Spell
syn region  ptxComment      start="/\*" end="\*/"
syn match   ptxDirective    "\.\(version\|target\|address_size\|visible\|entry\|func\|param\|reg\|shared\|local\|global\|const\|align\|file\|loc\|maxntid\|reqntid\|minnctapersm\|extern\|weak\|pragma\|section\)\>"
syn match   ptxType         "\.\(b8\|b16\|b32\|b64\|u8\|u16\|u32\|u64\|s8\|s16\|s32\|s64\|f16\|f16x2\|bf16\|f32\|f64\|pred\|v2\|v4\)\>"
syn match   ptxModifier     "\.\(rn\|rz\|rm\|rp\|rni\|rzi\|approx\|full\|ftz\|sat\|wide\|lo\|hi\|eq\|ne\|lt\|le\|gt\|ge\|ltu\|leu\|gtu\|geu\|equ\|neu\|num\|nan\|and\|or\|xor\|add\|min\|max\|inc\|dec\|exch\|cas\|sync\|aligned\|uni\|cta\|gpu\|sys\|relaxed\|acquire\|release\|to\|down\|up\|bfly\|idx\|all\|any\|ballot\)\>"
syn match   ptxRegister     "%[a-zA-Z_][a-zA-Z0-9_.]*"
syn match   ptxPredicate    "@!\?%[a-zA-Z_][a-zA-Z0-9_]*"
syn match   ptxLabel        "^\s*[$A-Za-z_][A-Za-z0-9_$]*:"
syn match   ptxNumber       "\<-\?\d\+\>"
syn match   ptxNumber       "\<0[xX]\x\+\>"
syn match   ptxNumber       "\<0[fFdD]\x\+\>"
syn match   ptxInstruction  "^\s*\(@!\?%\w\+\s\+\)\?\zs[a-z][a-z0-9_]*\ze[ .\t;]"
syn region  ptxString       start=+"+ end=+"+

hi def link ptxComment     Comment
hi def link ptxDirective   PreProc
hi def link ptxType        Type
hi def link ptxModifier    Special
hi def link ptxRegister    Identifier
hi def link ptxPredicate   Conditional
hi def link ptxLabel       Label
hi def link ptxNumber      Number
hi def link ptxInstruction Statement
hi def link ptxString      String

let b:current_syntax = "ptx"
