// The admin page's "Top channels" card: the channels with most sessions online
// (GET /admin/presence?top=N; with --redis, summed over the live nodes).
export const TOP_CHANNELS = 10;

// Fills `list` (an <ol>) with one item per channel, most sessions first; `channels` is the
// endpoint's `channels` array, or null when presence could not be read.
export function showTopChannels(list, channels) {
  list.replaceChildren();
  if (!channels || channels.length === 0) {
    const empty = document.createElement('li');
    empty.className = 'empty';
    empty.textContent = channels ? 'no channel has a session online' : 'presence unavailable';
    list.append(empty);
    return;
  }
  for (const c of channels) {
    const item = document.createElement('li');
    item.dataset.channel = c.channel;
    const name = document.createElement('span');
    name.className = 'channel';
    name.textContent = c.channel; // text, never HTML: channel names come from clients
    const counts = document.createElement('span');
    counts.className = 'counts';
    counts.textContent = `${c.users} user${c.users === 1 ? '' : 's'}, ${c.sessions} session${c.sessions === 1 ? '' : 's'}`;
    item.append(name, ' ', counts);
    list.append(item);
  }
}
