"""Channels and channel providers: the communicators collective commands run on.

Follows ``iree_hal_channel_t`` and ``iree_hal_channel_provider_t``
(runtime/src/iree/hal/channel.h, channel_provider.h). A compiled program creates channels with
``hal.channel.create`` (rank and count -1: ask the provider) and ``hal.channel.split`` and
records ``hal.command_buffer.collective`` commands on them; the queue that executes such a
command calls ``Channel.collective``. The provider decides what a channel is: in one process,
ranks running in threads share a ``LocalWorld`` (rt.runtime.hal.drivers.local_channel); across
processes an MPI communicator (issue 12) implements the same two classes, and the compiled
module does not change.

Interface for providers (all a provider must implement):

* ``ChannelProvider.query_default_rank_and_count() -> (rank, count)``
* ``ChannelProvider.create_channel(device, group, rank, count) -> Channel`` (``group`` a str
  or None; rank/count already resolved against the defaults)
* ``Channel.rank``, ``Channel.count``; ``Channel.group``: a hashable naming the communicator,
  equal on every participant's channel and distinct between communicators (the simulator
  matches collectives with it)
* ``Channel.split(color, key) -> Channel | None`` (``MPI_Comm_split``; ``NO_COLOR`` -> None)
* ``Channel.collective(op, param, send, recv, count)``: run one collective (a
  ``CollectiveOp``; ``send`` / ``recv`` 1-D numpy arrays of ``op.dtype`` or None; blocking;
  raises ``DeviceError`` naming the channel, the rank and the cause)
* ``Channel.abort(cause)``: make pending and blocked collectives fail with ``cause`` (a rank
  died); later ones work again.
* ``ChannelProvider.abort(cause)`` (optional): a call on this rank failed; tell the peers.
"""
import abc

#: ``IREE_HAL_CHANNEL_RANK_DEFAULT`` / ``COUNT_DEFAULT`` / ``NO_COLOR``.
RANK_DEFAULT = COUNT_DEFAULT = NO_COLOR = -1


class Channel(abc.ABC):
    """One participant (``rank`` of ``count``) of a communicator named by ``group``."""

    rank = 0
    count = 1
    group = None

    @property
    def label(self):
        return f"channel {self.group} rank {self.rank}/{self.count}"

    @abc.abstractmethod
    def split(self, color, key):
        """The channel of the sub-group of ranks that passed the same ``color`` (ranked by
        ``key``, ties by this rank), or None for ``NO_COLOR``. Every rank must call it."""

    @abc.abstractmethod
    def collective(self, op, param, send, recv, count):
        """Run one ``CollectiveOp`` with every other rank (see rt.runtime.hal.collective)."""

    def abort(self, cause):
        """Fail pending and blocked collectives with ``cause``."""

    def __repr__(self):
        return f"<{type(self).__name__} {self.label}>"


class ChannelProvider(abc.ABC):
    """Where ``hal.channel.create`` gets channels, ranks and counts."""

    @abc.abstractmethod
    def query_default_rank_and_count(self):
        """``(rank, count)`` of this participant in the default group."""

    @abc.abstractmethod
    def create_channel(self, device, group, rank, count):
        """A ``Channel`` of ``device`` in group ``group`` (str or None) as ``rank`` of
        ``count`` (both resolved)."""

    def abort(self, cause):
        """A call on this rank failed with ``cause``: tell the other ranks, whose collectives
        must fail rather than wait for it. Threads of one process are aborted by their SPMD
        runner (rt.multi_device), so the default does nothing; an MPI provider messages its
        peers."""
