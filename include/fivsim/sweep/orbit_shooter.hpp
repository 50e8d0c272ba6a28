// fivsim/sweep/orbit_shooter.hpp — the backends of continuation's shot interface
// (analysis/continuation_shots.hpp): CPU threads, the device, and the lockstep that makes the
// shots of many branches' corrector iterations, each on its own host thread, one batch (one launch,
// as a sweep is). A shot is the same per-case code on any thread, so a branch's points do not
// depend on how the batches are cut.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fivsim/analysis/continuation_shots.hpp"

namespace fivsim {

// the CPU backend: a batch's shots spread over `threads` threads (the caller's one of them), each
// with its own scratch; a pool of its own rather than OpenMP's, whose teams belong to the thread
// that opens them (here any branch's)
template <class D>
class CpuOrbitShooter final : public OrbitShooter<D> {
 public:
  explicit CpuOrbitShooter(int threads) {
    const int n = threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    for (int i = 0; i < n; ++i) scratch_.push_back(std::make_unique<OrbitWork<D>>());
    for (int i = 1; i < n; ++i) helpers_.emplace_back([this, i] { serve(i); });
  }
  ~CpuOrbitShooter() override {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : helpers_) t.join();
  }
  CpuOrbitShooter(const CpuOrbitShooter&) = delete;
  CpuOrbitShooter& operator=(const CpuOrbitShooter&) = delete;

  void shoot(const std::vector<ShotJob<D>>& jobs) override {
    if (helpers_.empty() || jobs.size() < 2) {
      for (const ShotJob<D>& j : jobs) run(j, *scratch_[0]);
      return;
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      jobs_ = &jobs;
      next_ = 0;
      busy_ = static_cast<int>(helpers_.size());
      ++round_;
    }
    wake_.notify_all();
    take(jobs, *scratch_[0]);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    jobs_ = nullptr;
  }

 private:
  static void run(const ShotJob<D>& j, OrbitWork<D>& w) {
    run_orbit_shot(*j.model, *j.settings, *j.section, *j.shot, w);
  }
  void take(const std::vector<ShotJob<D>>& jobs, OrbitWork<D>& w) {
    for (std::size_t i = next_++; i < jobs.size(); i = next_++) run(jobs[i], w);
  }
  void serve(int id) {
    long seen = 0;
    for (;;) {
      const std::vector<ShotJob<D>>* jobs = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || round_ != seen; });
        if (stop_) return;
        seen = round_;
        jobs = jobs_;
      }
      take(*jobs, *scratch_[static_cast<std::size_t>(id)]);
      const std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::unique_ptr<OrbitWork<D>>> scratch_;  // one per thread
  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::vector<ShotJob<D>>* jobs_ = nullptr;
  std::atomic<std::size_t> next_{0};
  int busy_ = 0;
  long round_ = 0;
  bool stop_ = false;
};

// the CUDA backend (kernels/orbit_shots.cu): a batch's shots one launch, device threads taking
// them from a queue, each with its OrbitWork in global memory; the models, settings and sections
// the shots run on copied once a batch. A device error throws std::runtime_error (in a build
// without CUDA, making one does). D is a tag: the instantiation
#define FIVSIM_CUDA_ORBIT_SHOOTER(D) std::unique_ptr<OrbitShooter<D>> cuda_orbit_shooter(D)
template <class D>
FIVSIM_CUDA_ORBIT_SHOOTER(D);

// the shots of every branch thread that takes part, one batch on `backend` once each has asked
// (or left): a branch thread join()s before its first shot and leave()s after its last. Any
// number of threads may shoot at once. A batch whose backend throws (a device error) comes back
// with every shot failed, and error() says why
template <class D>
class LockstepShooter final : public OrbitShooter<D> {
 public:
  explicit LockstepShooter(OrbitShooter<D>& backend) : backend_(backend) {}

  void join() {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++live_;
  }
  void leave() {
    std::unique_lock<std::mutex> lock(mutex_);
    --live_;
    launch_when_all_wait(lock);
  }
  void shoot(const std::vector<ShotJob<D>>& jobs) override {
    std::unique_lock<std::mutex> lock(mutex_);
    const long ticket = open_;
    pending_.insert(pending_.end(), jobs.begin(), jobs.end());
    ++waiting_;
    launch_when_all_wait(lock);
    finished_.wait(lock, [&] { return done_ >= ticket; });
  }
  // batches run and the shots in them
  long batches() const { return batches_; }
  long shots() const { return shots_; }
  // the first error a batch's backend threw (empty: none)
  std::string error() const {
    const std::lock_guard<std::mutex> lock(error_mutex_);
    return error_;
  }

 private:
  void launch_when_all_wait(std::unique_lock<std::mutex>& lock) {
    while (!running_ && waiting_ > 0 && waiting_ == live_) {
      running_ = true;
      std::vector<ShotJob<D>> batch;
      batch.swap(pending_);
      const int members = waiting_;
      const long id = open_++;  // shots asked for from now on go to the next batch
      lock.unlock();
      try {
        backend_.shoot(batch);
      } catch (const std::exception& e) {
        for (const ShotJob<D>& j : batch) j.shot->ok = false;
        const std::lock_guard<std::mutex> first(error_mutex_);
        if (error_.empty()) error_ = e.what();
      }
      lock.lock();
      waiting_ -= members;
      done_ = id;
      running_ = false;
      ++batches_;
      shots_ += static_cast<long>(batch.size());
      finished_.notify_all();
    }
  }

  OrbitShooter<D>& backend_;
  std::mutex mutex_;
  mutable std::mutex error_mutex_;
  std::string error_;
  std::condition_variable finished_;
  std::vector<ShotJob<D>> pending_;
  int live_ = 0, waiting_ = 0;
  long open_ = 0, done_ = -1, batches_ = 0, shots_ = 0;
  bool running_ = false;
};

}  // namespace fivsim
