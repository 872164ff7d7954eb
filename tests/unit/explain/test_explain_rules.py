# ruff: noqa: E501 - a table of log lines, each as its upstream source prints it
"""Every family rule of explain, each on a log in the shape its upstream source prints, and the one verdict it gives.

The lines are written from each rule's source (the file that prints the message), not copied from the corpus; a
meta-test fails when a rule has no case here, so a new rule comes with its test.
"""

from __future__ import annotations

import io

import pytest

from xladoctor.explain.engine import explain_stream
from xladoctor.explain.rules import load_rules

TB = 'Traceback (most recent call last):\n  File "/home/me/train.py", line 10, in <module>\n    main()\n'
LIB = '  File "/opt/venv/lib/python3.11/site-packages/{pkg}/core.py", line 5, in run\n    x = y\n'


def tb(line: str, pkg: str | None = None) -> str:
    return TB + (LIB.format(pkg=pkg) if pkg else "") + line + "\n"


# rule id -> (log, family, verdict, a word the verdict must name)
CASES: dict[str, tuple[str, str, str, str]] = {
    "missing-library:shared_object_missing": (tb("ImportError: libcublasLt.so.12: cannot open shared object file: No such file or directory"), "missing-library", "environment", "nvidia-cublas-cu12"),
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
    "module-not-found:no_module_named": (tb("ModuleNotFoundError: No module named 'cv2'"), "module-not-found", "environment", "opencv-python"),
    "module-not-found:requires_package": (tb("ImportError: LlamaTokenizer requires the SentencePiece library but it was not found in your environment.", "transformers"), "module-not-found", "environment", "SentencePiece"),
    "api-version-skew:submodule_gone": (tb("ModuleNotFoundError: No module named 'jax.experimental.maps'", "flax"), "api-version-skew", "environment", "jax.experimental.maps"),
    "api-version-skew:module_has_no_attribute": (tb("AttributeError: module 'numpy' has no attribute 'float'", "imgaug"), "api-version-skew", "environment", "numpy"),
    "api-version-skew:cannot_import_name": (tb("ImportError: cannot import name 'cached_download' from 'huggingface_hub' (/opt/venv/lib/python3.11/site-packages/huggingface_hub/__init__.py)", "diffusers"), "api-version-skew", "environment", "huggingface_hub"),
    "api-version-skew:unexpected_keyword": (tb("TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'", "trl"), "api-version-skew", "environment", "tokenizer"),
    "api-version-skew:api_removed": (tb("AttributeError: jax.tree_map was removed in JAX v0.6.0: use jax.tree.map (jax v0.4.25 or newer) or jax.tree_util.tree_map (any JAX version).", "optax"), "api-version-skew", "environment", "jax.tree_map"),
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
    "framework-internal-error:triton_shared_memory": (tb("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 163842, Hardware limitation: 101376. Reducing block sizes or `num_stages` may help.", "triton"), "framework-internal-error", "framework-bug", "num_stages"),
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
    "framework-internal-error:aborted": ("2024-01-01 12:00:00.000000: F tensorflow/core/common_runtime/device/device_event_mgr.cc:221] Unexpected Event status: 1\nFatal Python error: Aborted\n", "framework-internal-error", "unknown", "SIGABRT"),
    "unsupported-op:metal_assertion": ("/AppleInternal/Library/BuildRoots/0000/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShaders/MPSCore/Types/MPSNDArray.mm:788: failed assertion `[MPSNDArray initWithDevice:descriptor:] Error: total bytes of NDArray > 2**32'\nzsh: abort      python train.py\n", "unsupported-op", "framework-bug", "MPS"),
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
}  # fmt: skip


def _diagnose(log: str):  # type: ignore[no-untyped-def]
    return explain_stream("run.log", io.BytesIO(log.encode()), None).diagnosis


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


def test_an_mps_op_named_in_a_repr_s_escaped_quotes_is_still_read() -> None:
    log = "NotImplementedError: The operator \\'aten::roll\\' is not currently implemented for the MPS device.\n"
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "unsupported-op" and "aten::roll" in diagnosis.cause


def test_a_dataloader_worker_killed_is_the_host_s_memory() -> None:
    diagnosis = _diagnose(tb("RuntimeError: DataLoader worker (pid 22358) is killed by signal: Killed. ", "torch"))
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("out-of-memory", "not-environment")
