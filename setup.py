"""Builds the Python package fivsim for `pip install --no-build-isolation .` (pyproject.toml): CMake
configures a Release build of the module target fivsim_python in build-pip/ (no tests; the CUDA
kernels only where a GPU is visible or FIVSIM_CUDA=ON, as scripts/run.sh decides), and the module
it links (src/python/module.cpp over the engine) goes into the wheel beside the package's Python
part (src/python/fivsim/). FIVSIM_BUILD_JOBS sets the parallel compile jobs (default: all cores).
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def cuda_setting():
    """FIVSIM_CUDA from the environment, else ON only where nvidia-smi sees a GPU"""
    if os.environ.get("FIVSIM_CUDA"):
        return os.environ["FIVSIM_CUDA"]
    try:
        gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    except OSError:
        gpus = ""
    return "ON" if "GPU" in gpus else "OFF"


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.join(ROOT, "build-pip")
        jobs = os.environ.get("FIVSIM_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DFIVSIM_PYTHON=ON",
                        "-DFIVSIM_BUILD_TESTS=OFF", "-DFIVSIM_CUDA=" + cuda_setting(),
                        "-DPython_EXECUTABLE=" + sys.executable], check=True)
        subprocess.run(["cmake", "--build", build, "--target", "fivsim_python", "-j", jobs], check=True)
        built = [f for f in os.listdir(os.path.join(build, "python", "fivsim")) if f.startswith("_core")]
        if not built:
            raise RuntimeError("the CMake build made no module in " + os.path.join(build, "python", "fivsim"))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(build, "python", "fivsim", built[0]), target)


setup(packages=["fivsim"], package_dir={"fivsim": "src/python/fivsim"},
      ext_modules=[Extension("fivsim._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
