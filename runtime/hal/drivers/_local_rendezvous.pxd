# C-level view of rt.runtime.hal.drivers._local_rendezvous (see _local_rendezvous.pyx).
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

cdef extern from "<pthread.h>" nogil:
    ctypedef struct pthread_mutex_t:
        pass
    ctypedef struct pthread_cond_t:
        pass

cdef enum RendezvousStatus:
    RENDEZVOUS_OK = 0
    RENDEZVOUS_MISMATCH = 1  # the ranks asked for different collectives
    RENDEZVOUS_ABORTED = 2   # the world was aborted (a rank died) or a new epoch began
    RENDEZVOUS_GONE = 3      # a rank finished its call without joining
    RENDEZVOUS_FAILED = 4    # the reference computation raised (its error is kept)
    RENDEZVOUS_PENDING = 5   # wait: the timeout passed first

# What one rank brings to a rendezvous: the packed op (iree_hal_collective_op_t), its param,
# and the byte ranges of its send and receive buffers.
ctypedef struct Arrival:
    uint32_t op
    uint32_t param
    char* send
    uint64_t send_length
    char* recv
    uint64_t recv_length
    uint64_t count

# One collective being joined: ranks fill ``arrivals``; the last one computes.
ctypedef struct Entry:
    int64_t seq              # the per-communicator sequence number, -1 when free
    uint64_t epoch
    int arrived
    int left
    int computing
    int done
    int status
    int mismatch             # the first rank whose op or count differs from rank 0's
    uint8_t* present         # per rank: arrived
    uint8_t* gone            # per rank: finished without arriving (status GONE)
    Arrival* arrivals

# Where a failed rendezvous leaves what its error message needs (read with the GIL).
ctypedef struct Failure:
    int rank                 # mismatch: the first rank whose op or count differs from rank 0's
    uint32_t op0, op
    uint64_t count0, count
    int slot                 # failed: the entry slot whose Python error was kept
    uint8_t* gone            # gone: the caller's array of count flags, filled


# The state every communicator of one world shares, guarded by ``mutex``.
ctypedef struct WorldState:
    pthread_mutex_t mutex
    pthread_cond_t cond
    uint64_t epoch
    int failed
    int count
    uint8_t* finished        # per world rank: its call of this epoch is over
    int64_t spin_ns          # how long a waiter polls before it sleeps (0: it sleeps at once)


cdef class NativeWorld:
    cdef WorldState* state
    cdef list communicators


# One communicator: ``count`` ranks (rank r is world rank ``members[r]``) joining collectives
# in order; two entries suffice (a rank can be at most one collective ahead of another).
ctypedef struct CommState:
    WorldState* world
    int count
    int* members
    int64_t* next_seq
    Entry entries[2]
    void* owner              # the NativeCommunicator (borrowed), for the fallback


# Join the next collective of ``rank``, the last to arrive computing it: RENDEZVOUS_OK (then
# wait) or RENDEZVOUS_ABORTED.
cdef int rendezvous_arrive(CommState* c, int rank, const Arrival* arrival,
                           int64_t* seq) noexcept nogil
# The outcome of collective ``seq``, or RENDEZVOUS_PENDING once ``timeout_ns`` (-1: none) passed.
cdef int rendezvous_wait(CommState* c, int64_t seq, int64_t timeout_ns,
                         Failure* failure) noexcept nogil
# Give up on collective ``seq`` (the world aborted): returns once no computation is using the
# ranks' buffers.
cdef void rendezvous_leave(CommState* c, int64_t seq) noexcept nogil
# The wait before a Ctrl-C check on this thread (-1: none, not the main thread), and the rest
# of a wait that timed out, Ctrl-C ending it (see _local_rendezvous.pyx).
cdef int64_t wait_slice_ns() noexcept nogil
cdef int rendezvous_wait_interruptibly(CommState* c, int64_t seq, int status,
                                       Failure* failure) except -1


cdef class NativeCommunicator:
    cdef NativeWorld world
    cdef CommState* c
    cdef list errors
    cdef object fallback

    cdef object outcome(self, int status, Failure* f)
