/* Workgroup launcher for llvm-cpu exports: a small process-wide pthread pool.
 *
 * The struct layouts mirror devices/llvm_cpu/abi.py (checked by _launcher.pyx at import).
 * Modelled on IREE's executable_library.h dispatch ABI and, in spirit, on iree/task's
 * worker pool: the dispatching thread takes part; workgroups are handed out by an atomic
 * counter in chunks of consecutive workgroups (about 32 chunks per thread); idle workers spin
 * for a short bounded time (default 50 us) and then sleep on a futex, so they never fight
 * other thread pools (OpenMP, OpenBLAS) for the cores.
 *
 * A dispatch owns the pool while it runs (pool->lock); a second concurrent dispatch finds the
 * pool busy and runs its workgroups on its own calling thread instead of waiting.
 *
 * A job is a group of up to RT_MAX_GROUP independent dispatches (the commands of a command
 * buffer between two barriers, IREE's task command buffer issuing a concurrent region): their
 * workgroups form one index space (dispatch 0's, then dispatch 1's, ...) handed out by the one
 * counter, so dispatches with few workgroups each run side by side on the pool.
 *
 * Cancellation (issue 13): every workgroup first checks the dispatch's rt_cancel_t, taken from
 * the calling thread when the dispatch starts. Once SIGINT has arrived since then (the VM's
 * handler, chained in front of Python's, bumps *rt_interrupt_epoch) or the call's deadline has passed,
 * the dispatch stops between workgroups with RT_STATUS_INTERRUPTED / _DEADLINE_EXCEEDED.
 */
#ifndef RT_LLVM_CPU_WORKER_POOL_H_
#define RT_LLVM_CPU_WORKER_POOL_H_

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <immintrin.h>

#define RT_MAX_WORKERS 255
#define RT_CHUNKS_PER_THREAD 32
#define RT_MAX_GROUP 64

typedef struct {
  uint32_t workgroup_count[3];
  uint32_t workgroup_size[3];
  uint32_t constant_count;
  uint32_t binding_count;
  const uint32_t* constants;
  void* const* binding_ptrs;
  const uint64_t* binding_lengths;
} rt_dispatch_state_v0_t;

typedef struct {
  uint32_t workgroup_id[3];
  uint32_t worker_id;
  uint32_t processor_id;
} rt_workgroup_state_v0_t;

typedef int32_t (*rt_dispatch_fn_t)(const rt_dispatch_state_v0_t*,
                                    const rt_workgroup_state_v0_t*);

/* Why a dispatch stopped early (rt_cancel_t.stopped; abi.py lists them too). */
#define RT_STATUS_INTERRUPTED (-2)
#define RT_STATUS_DEADLINE_EXCEEDED (-3)

/* When a dispatch stops early: the interrupt epoch it started in, its deadline (ns, 0 = none);
 * `stopped` is set to the RT_STATUS_* that stopped it (0: it was not), which is also the
 * status rt_launch returns (a kernel may return the same code: `stopped` tells them apart). */
typedef struct {
  uint64_t epoch;
  uint64_t deadline_ns;
  int32_t stopped;
} rt_cancel_t;

/* One dispatch of a group: its workgroups are indices [first, first + total) of the job. */
typedef struct {
  rt_dispatch_fn_t fn;
  const rt_dispatch_state_v0_t* state;
  uint64_t first;
  uint64_t total;
} rt_job_item_t;

/* One group of dispatches in flight. Lives in the pool (not on a caller's stack) because a
 * worker may still touch `pending`/`caller_sleeping` just after the caller has returned. */
typedef struct {
  rt_job_item_t items[RT_MAX_GROUP];
  uint32_t item_count;
  uint64_t total;
  uint64_t chunk; /* workgroups taken per atomic increment */
  _Atomic uint64_t next;
  _Atomic int32_t status;
  _Atomic uint64_t failed_index;
  _Atomic uint32_t pending;
  _Atomic uint32_t caller_sleeping;
  rt_cancel_t cancel;
} rt_job_t;

typedef struct {
  _Atomic uint32_t seq;      /* bumped by the caller to hand this worker a job */
  _Atomic uint32_t sleeping; /* 1 while the worker is (about to be) in futex_wait */
  _Atomic(rt_job_t*) job;    /* claimed by the worker or revoked by the caller (exchange) */
  uint32_t worker_id;
  pthread_t thread;
  char pad[64];
} rt_worker_t;

typedef struct {
  pthread_mutex_t lock;
  uint32_t worker_count;
  rt_worker_t* workers[RT_MAX_WORKERS];
  rt_job_t job;
  _Atomic uint64_t spin_ns;
  int atfork_registered;
  _Atomic uint64_t group_jobs;        /* jobs of two or more dispatches run on the pool */
  _Atomic uint64_t grouped_dispatches; /* the dispatches those jobs held */
  /* CPUs the workers are pinned to (IREE's --task_topology_cpu_ids): worker k (k >= 1; the
   * dispatching thread is worker 0 and is never pinned) runs on cpu_ids[k % cpu_id_count].
   * cpu_id_count 0, the default, pins nothing. */
  int32_t cpu_ids[RT_MAX_WORKERS + 1];
  uint32_t cpu_id_count;
  cpu_set_t unpinned; /* the process's CPUs when pinning first began, restored by unpinning */
  int unpinned_saved;
} rt_pool_t;

static rt_pool_t rt_pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .spin_ns = 50000};

static inline uint64_t rt_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The VM's count of SIGINTs (rt.runtime.vm.INTERRUPT_EPOCH_ADDRESS, set when the launcher
 * loads; until then a counter that never moves). */
static _Atomic uint64_t rt_no_interrupts = 0;
static _Atomic uint64_t* rt_interrupt_epoch = &rt_no_interrupts;
static inline void rt_set_interrupt_epoch(void* epoch) { rt_interrupt_epoch = (_Atomic uint64_t*)epoch; }
/* The cancellation of the next rt_launch on this thread (rt_cancel_begin). */
static __thread rt_cancel_t rt_thread_cancel = {0, 0, 0};

/* Sets the calling thread's next dispatches to stop at the next SIGINT or at `deadline_ns`. */
static inline void rt_cancel_begin(uint64_t deadline_ns) {
  rt_thread_cancel.epoch = atomic_load(rt_interrupt_epoch);
  rt_thread_cancel.deadline_ns = deadline_ns;
  rt_thread_cancel.stopped = 0;
}

/* Why the calling thread's last rt_launch stopped early: RT_STATUS_*, or 0. */
static inline int32_t rt_cancel_stopped(void) { return rt_thread_cancel.stopped; }

/* 0, or the status that stops a dispatch before its workgroup `i` (the clock is read every 16). */
static inline int32_t rt_cancelled(const rt_cancel_t* c, uint64_t i) {
  if (atomic_load_explicit(rt_interrupt_epoch, memory_order_relaxed) != c->epoch) {
    return RT_STATUS_INTERRUPTED;
  }
  if (c->deadline_ns != 0 && (i & 15) == 0 && rt_now_ns() >= c->deadline_ns) {
    return RT_STATUS_DEADLINE_EXCEEDED;
  }
  return 0;
}

static inline void rt_futex_wait(_Atomic uint32_t* word, uint32_t value) {
  syscall(SYS_futex, (uint32_t*)word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static inline void rt_futex_wake(_Atomic uint32_t* word) {
  syscall(SYS_futex, (uint32_t*)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Records the cancellation status of `job` before workgroup `i`, if any; 1 then. */
static inline int rt_job_cancelled(rt_job_t* job, uint64_t i) {
  int32_t rc = rt_cancelled(&job->cancel, i);
  if (rc == 0) return 0;
  int32_t expected = 0;
  if (atomic_compare_exchange_strong(&job->status, &expected, rc)) {
    atomic_store_explicit(&job->failed_index, i, memory_order_relaxed);
    job->cancel.stopped = rc; /* read by the caller once every participant has left */
  }
  return 1;
}

/* Runs workgroups of `job` until none are left, one has failed or the job is cancelled. */
static void rt_job_run(rt_job_t* job, uint32_t worker_id) {
  rt_workgroup_state_v0_t wg;
  uint32_t k = 0; /* the item holding the current index (indices only grow within a chunk) */
  int cpu = sched_getcpu();
  wg.worker_id = worker_id;
  wg.processor_id = cpu < 0 ? 0u : (uint32_t)cpu;
  for (;;) {
    uint64_t first = atomic_fetch_add_explicit(&job->next, job->chunk, memory_order_relaxed);
    if (first >= job->total) return;
    uint64_t last = first + job->chunk < job->total ? first + job->chunk : job->total;
    if (first < job->items[k].first) k = 0;
    for (uint64_t i = first; i < last; ++i) {
      if (atomic_load_explicit(&job->status, memory_order_relaxed) != 0) return;
      if (rt_job_cancelled(job, i)) return;
      while (i >= job->items[k].first + job->items[k].total) ++k;
      const rt_job_item_t* item = &job->items[k];
      uint64_t cx = item->state->workgroup_count[0], cy = item->state->workgroup_count[1];
      uint64_t t = (i - item->first) / cx;
      wg.workgroup_id[0] = (uint32_t)(i - item->first - t * cx);
      wg.workgroup_id[1] = (uint32_t)(t % cy);
      wg.workgroup_id[2] = (uint32_t)(t / cy);
      int32_t rc = item->fn(item->state, &wg);
      if (rc != 0) {
        int32_t expected = 0;
        if (atomic_compare_exchange_strong(&job->status, &expected, rc)) {
          atomic_store_explicit(&job->failed_index, i, memory_order_relaxed);
        }
        return;
      }
    }
  }
}

/* Marks one participant of `job` done; the last one wakes a sleeping caller. */
static inline void rt_job_leave(rt_job_t* job) {
  /* seq_cst on both sides (here and caller_sleeping/pending in rt_launch): no lost wake-up. */
  if (atomic_fetch_sub(&job->pending, 1) == 1) {
    if (atomic_load(&job->caller_sleeping)) rt_futex_wake(&job->pending);
  }
}

static void* rt_worker_main(void* arg) {
  rt_worker_t* w = (rt_worker_t*)arg;
  uint32_t seen = 0; /* seq starts at 0: a job handed off before this thread ran is seen */
  for (;;) {
    uint32_t s = atomic_load_explicit(&w->seq, memory_order_acquire);
    if (s == seen) {
      uint64_t budget = atomic_load_explicit(&rt_pool.spin_ns, memory_order_relaxed);
      uint64_t start = rt_now_ns();
      for (uint32_t i = 1;; ++i) {
        _mm_pause();
        s = atomic_load_explicit(&w->seq, memory_order_acquire);
        if (s != seen) break;
        if ((i & 63) == 0 && rt_now_ns() - start >= budget) break;
      }
      while (s == seen) {
        atomic_store(&w->sleeping, 1);
        s = atomic_load(&w->seq);
        if (s == seen) rt_futex_wait(&w->seq, seen);
        atomic_store(&w->sleeping, 0);
        s = atomic_load(&w->seq);
      }
    }
    seen = s;
    rt_job_t* job = atomic_exchange(&w->job, NULL);
    if (job == NULL) continue; /* revoked: the caller finished the dispatch without us */
    rt_job_run(job, w->worker_id);
    rt_job_leave(job);
  }
  return NULL;
}

static void rt_pool_after_fork_child(void) {
  /* The workers do not exist in the child: forget them; the next dispatch starts new ones. */
  pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
  rt_pool.lock = fresh;
  rt_pool.worker_count = 0;
}

/* Applies the pool's CPU ids to worker `w` (called with pool->lock held). */
static void rt_pool_pin_worker(rt_worker_t* w) {
  if (rt_pool.cpu_id_count == 0) {
    /* Unpinned workers take the process's CPUs (the main thread's), not those of the thread
     * that started them: a dispatch from a rank's queue thread bound to one core
     * (rt.load(..., bind="core")) must not confine the whole pool to that core. */
    cpu_set_t set;
    if (rt_pool.unpinned_saved)
      set = rt_pool.unpinned;
    else if (sched_getaffinity(getpid(), sizeof(set), &set) != 0)
      return;
    pthread_setaffinity_np(w->thread, sizeof(set), &set);
    return;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(rt_pool.cpu_ids[w->worker_id % rt_pool.cpu_id_count], &set);
  pthread_setaffinity_np(w->thread, sizeof(set), &set);
}

/* Pins the workers to `ids` (`count` CPU numbers below CPU_SETSIZE, checked by the caller),
 * now and as they start; count 0 gives them back the CPUs the process had. Waits for a
 * running dispatch to end. */
static void rt_pool_set_cpu_ids(const int32_t* ids, uint32_t count) {
  pthread_mutex_lock(&rt_pool.lock);
  if (!rt_pool.unpinned_saved && count > 0) {
    sched_getaffinity(0, sizeof(cpu_set_t), &rt_pool.unpinned);
    rt_pool.unpinned_saved = 1;
  }
  if (count > RT_MAX_WORKERS + 1) count = RT_MAX_WORKERS + 1;
  for (uint32_t i = 0; i < count; ++i) rt_pool.cpu_ids[i] = ids[i];
  rt_pool.cpu_id_count = count;
  for (uint32_t i = 0; i < rt_pool.worker_count; ++i) rt_pool_pin_worker(rt_pool.workers[i]);
  pthread_mutex_unlock(&rt_pool.lock);
}

/* The CPUs worker `index` (0 = worker 1) may run on, at most `cap` into `out`; -1 if no such
 * worker has started. */
static int32_t rt_pool_worker_cpus(uint32_t index, int32_t* out, uint32_t cap) {
  cpu_set_t set;
  pthread_mutex_lock(&rt_pool.lock);
  if (index >= rt_pool.worker_count) {
    pthread_mutex_unlock(&rt_pool.lock);
    return -1;
  }
  pthread_getaffinity_np(rt_pool.workers[index]->thread, sizeof(set), &set);
  pthread_mutex_unlock(&rt_pool.lock);
  int32_t n = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && (uint32_t)n < cap; ++cpu)
    if (CPU_ISSET(cpu, &set)) out[n++] = cpu;
  return n;
}

/* Starts workers until there are `count` (called with pool->lock held). Returns how many exist. */
static uint32_t rt_pool_grow(uint32_t count) {
  if (!rt_pool.atfork_registered) {
    pthread_atfork(NULL, NULL, rt_pool_after_fork_child);
    rt_pool.atfork_registered = 1;
  }
  if (count > RT_MAX_WORKERS) count = RT_MAX_WORKERS;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* workers never run signal handlers */
  while (rt_pool.worker_count < count) {
    rt_worker_t* w = (rt_worker_t*)aligned_alloc(64, (sizeof(rt_worker_t) + 63) / 64 * 64);
    if (w == NULL) break;
    memset(w, 0, sizeof(*w));
    w->worker_id = rt_pool.worker_count + 1;
    if (pthread_create(&w->thread, NULL, rt_worker_main, w) != 0) {
      free(w);
      break;
    }
    pthread_detach(w->thread);
    rt_pool_pin_worker(w);
    rt_pool.workers[rt_pool.worker_count++] = w;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rt_pool.worker_count;
}

/* Runs every workgroup on the calling thread, in x-fastest order. */
static int32_t rt_launch_inline(rt_dispatch_fn_t fn, const rt_dispatch_state_v0_t* state,
                                uint64_t* failed_index) {
  rt_workgroup_state_v0_t wg;
  rt_cancel_t cancel = rt_thread_cancel;
  int cpu = sched_getcpu();
  uint32_t cx = state->workgroup_count[0], cy = state->workgroup_count[1];
  uint32_t cz = state->workgroup_count[2];
  uint64_t i = 0;
  wg.worker_id = 0;
  wg.processor_id = cpu < 0 ? 0u : (uint32_t)cpu;
  for (uint32_t z = 0; z < cz; ++z) {
    for (uint32_t y = 0; y < cy; ++y) {
      for (uint32_t x = 0; x < cx; ++x, ++i) {
        wg.workgroup_id[0] = x;
        wg.workgroup_id[1] = y;
        wg.workgroup_id[2] = z;
        int32_t rc = rt_cancelled(&cancel, i);
        rt_thread_cancel.stopped = rc;
        if (rc == 0) rc = fn(state, &wg);
        if (rc != 0) {
          *failed_index = i;
          return rc;
        }
      }
    }
  }
  return 0;
}

/* Runs the workgroups of `count` (<= RT_MAX_GROUP) independent dispatches on up to `threads`
 * threads (the caller included), side by side, and returns 0, or the first recorded failing
 * workgroup's code with its dispatch in *failed_item and its linear index in that dispatch
 * (x + cx * (y + cy * z)) in *failed_index. The caller keeps each x * y * z below 2**63 and
 * their sum below 2**64. Safe to call concurrently from many threads: when the pool is busy
 * the dispatches run one after the other on the calling thread. */
static int32_t rt_launch_group(const rt_dispatch_fn_t* fns,
                               const rt_dispatch_state_v0_t* const* states, uint32_t count,
                               uint32_t threads, uint32_t* failed_item, uint64_t* failed_index) {
  uint64_t total = 0;
  for (uint32_t k = 0; k < count; ++k) {
    total += (uint64_t)states[k]->workgroup_count[0] * states[k]->workgroup_count[1] *
             states[k]->workgroup_count[2];
  }
  if (total == 0) return 0;
  uint64_t helpers = (threads < total ? threads : total) - 1;
  if (helpers == 0 || pthread_mutex_trylock(&rt_pool.lock) != 0) {
    for (uint32_t k = 0; k < count; ++k) {
      int32_t rc = rt_launch_inline(fns[k], states[k], failed_index);
      if (rc != 0) {
        *failed_item = k;
        return rc;
      }
    }
    return 0;
  }
  uint32_t available = rt_pool_grow((uint32_t)helpers);
  if (helpers > available) helpers = available;
  rt_job_t* job = &rt_pool.job;
  job->item_count = count;
  job->cancel = rt_thread_cancel;
  job->total = total;
  total = 0;
  for (uint32_t k = 0; k < count; ++k) {
    job->items[k].fn = fns[k];
    job->items[k].state = states[k];
    job->items[k].first = total;
    job->items[k].total = (uint64_t)states[k]->workgroup_count[0] *
                          states[k]->workgroup_count[1] * states[k]->workgroup_count[2];
    total += job->items[k].total;
  }
  if (count > 1) {
    atomic_fetch_add_explicit(&rt_pool.group_jobs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&rt_pool.grouped_dispatches, count, memory_order_relaxed);
  }
  /* About RT_CHUNKS_PER_THREAD grabs per thread: few contended atomics, small end imbalance. */
  job->chunk = (total + (helpers + 1) * RT_CHUNKS_PER_THREAD - 1) /
               ((helpers + 1) * RT_CHUNKS_PER_THREAD);
  atomic_store_explicit(&job->next, 0, memory_order_relaxed);
  atomic_store_explicit(&job->status, 0, memory_order_relaxed);
  atomic_store_explicit(&job->failed_index, 0, memory_order_relaxed);
  atomic_store_explicit(&job->caller_sleeping, 0, memory_order_relaxed);
  atomic_store(&job->pending, (uint32_t)helpers);
  for (uint64_t h = 0; h < helpers; ++h) {
    rt_worker_t* w = rt_pool.workers[h];
    atomic_store(&w->job, job);
    atomic_fetch_add(&w->seq, 1);
    if (atomic_load(&w->sleeping)) rt_futex_wake(&w->seq);
  }
  rt_job_run(job, 0);
  /* Take back hand-offs no worker has claimed yet: they would find nothing left to do. */
  for (uint64_t h = 0; h < helpers; ++h) {
    if (atomic_exchange(&rt_pool.workers[h]->job, NULL) != NULL) rt_job_leave(job);
  }
  uint64_t start = rt_now_ns();
  uint64_t budget = atomic_load_explicit(&rt_pool.spin_ns, memory_order_relaxed);
  for (uint32_t i = 1;; ++i) {
    uint32_t p = atomic_load_explicit(&job->pending, memory_order_acquire);
    if (p == 0) break;
    if ((i & 63) == 0 && rt_now_ns() - start >= budget) {
      atomic_store(&job->caller_sleeping, 1);
      p = atomic_load(&job->pending);
      if (p != 0) rt_futex_wait(&job->pending, p);
      atomic_store(&job->caller_sleeping, 0);
    } else {
      _mm_pause();
    }
  }
  int32_t status = atomic_load(&job->status);
  if (status != 0) {
    uint64_t i = atomic_load(&job->failed_index);
    uint32_t k = 0;
    while (i >= job->items[k].first + job->items[k].total) ++k;
    *failed_item = k;
    *failed_index = i - job->items[k].first;
  }
  rt_thread_cancel.stopped = job->cancel.stopped;
  pthread_mutex_unlock(&rt_pool.lock);
  return status;
}

/* Runs all workgroups of one dispatch on up to `threads` threads (rt_launch_group of one). */
static int32_t rt_launch(rt_dispatch_fn_t fn, const rt_dispatch_state_v0_t* state,
                         uint32_t threads, uint64_t* failed_index) {
  uint32_t failed_item = 0;
  return rt_launch_group(&fn, &state, 1, threads, &failed_item, failed_index);
}

#endif /* RT_LLVM_CPU_WORKER_POOL_H_ */
