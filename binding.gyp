# node-gyp / prebuildify build of the addon. Sources and flags come from native/sources.json through
# scripts/build-config.js, the same list CMakeLists.txt (cmake-js) reads; .cu files go through nvcc.
{
  'targets': [{
    'target_name': 'cuda_matmul',
    'sources': ['<!@(node scripts/build-config.js sources)'],
    'include_dirs': ['<!@(node scripts/build-config.js include-dirs)'],
    'defines': ['<!@(node scripts/build-config.js defines)'],
    'cflags!': ['-fno-exceptions'],
    'cflags_cc!': ['-fno-exceptions', '-fno-rtti', '-std=gnu++17'],
    'cflags_cc': ['<!@(node scripts/build-config.js cflags)', '-fexceptions', '-frtti'],
    'libraries': ['<!@(node scripts/build-config.js libraries)'],
    'rules': [{
      'rule_name': 'nvcc',
      'extension': 'cu',
      'inputs': ['<(RULE_INPUT_PATH)'],
      'outputs': ['<(INTERMEDIATE_DIR)/<(RULE_INPUT_ROOT).cu.o'],
      'action': ['<!@(node scripts/build-config.js nvcc-command)', '-c', '<(RULE_INPUT_PATH)',
                 '-o', '<(INTERMEDIATE_DIR)/<(RULE_INPUT_ROOT).cu.o'],
      'message': 'nvcc <(RULE_INPUT_PATH)',
      'process_outputs_as_sources': 1,
    }],
  }],
}
